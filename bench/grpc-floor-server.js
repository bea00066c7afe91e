// The gateway suite's floor in its own process (bench/grpc-floor.js): the bare Express 5 HTTPS
// handler, and its bare grpc-js server either in this same process (as `npm start` runs the gateway
// and auth) or in a child process (as the local cluster does). The gRPC address is a unix socket or
// loopback TCP, as the product's target uses. Argument: one JSON object
//   { certFile, keyFile, internalTlsRoot, grpcIn: 'same' | 'child', transport: 'unix' | 'tcp' }
// Sends { port, pids } to the parent once it listens.
'use strict';
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startFloorGrpcServer, startFloorHttps } = require('./grpc-floor');

async function grpcAddress(transport) {
  if (transport === 'tcp') return '127.0.0.1:0';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-floor-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return `unix:${path.join(dir, 'auth.sock')}`;
}

async function main() {
  const options = JSON.parse(process.argv[2]);
  if (options.role === 'grpc') {
    const { address } = await startFloorGrpcServer({ tlsDir: path.join(options.internalTlsRoot, 'auth'), address: options.address });
    process.send({ address });
    return;
  }
  const wanted = await grpcAddress(options.transport);
  const pids = { floor: process.pid };
  let address;
  if (options.grpcIn === 'child') {
    const child = fork(__filename, [JSON.stringify({ ...options, role: 'grpc', address: wanted })]);
    process.once('exit', () => child.kill());
    address = await new Promise((resolve) => child.once('message', (m) => resolve(m.address)));
    pids.floorGrpc = child.pid;
  } else {
    address = (await startFloorGrpcServer({ tlsDir: path.join(options.internalTlsRoot, 'auth'), address: wanted })).address;
  }
  const { port } = await startFloorHttps({
    certFile: options.certFile,
    keyFile: options.keyFile,
    grpcAddress: address,
    clientTlsDir: path.join(options.internalTlsRoot, 'gateway'),
  });
  process.send({ port, pids });
}

process.on('disconnect', () => process.exit(0));
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
