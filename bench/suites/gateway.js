// Gateway suite: an authenticated, rate-limited GET /api/auth/me/ through gateway → gRPC → auth and
// back, against a bare Express 5 JSON handler; plus the cost split of the hot path's parts, the CPU
// the gRPC hop alone costs its client and its server, and the same exchange over bare node:http2.
'use strict';
const { fork } = require('node:child_process');
const http2 = require('node:http2');
const path = require('node:path');
const { load, timeSequential } = require('../load');
const { internalTls, signUpUnlimited } = require('../support');
const { clusterPids, cpuWindow } = require('../cpu-time');

const ROOT = path.resolve(__dirname, '../..');
const HOP_CALLS = 8000;

module.exports = async function gatewaySuite({ cluster, api, seconds, log }) {
  const { access, user } = await signUpUnlimited(cluster, api, 'gateway');
  const gatewayUrl = `${cluster.gateways[0].url}/api/auth/me/`;
  const headers = { authorization: `Bearer ${access}` };

  const baseline = fork(path.join(__dirname, '../baseline-server.js'), [
    path.join(cluster.dataDir, 'tls/cert.pem'),
    path.join(cluster.dataDir, 'tls/key.pem'),
  ]);
  const baselinePort = await new Promise((resolve) => baseline.once('message', (m) => resolve(m.port)));
  try {
    log('warming up');
    await load({ url: gatewayUrl, headers, seconds: 2 });
    await load({ url: `https://127.0.0.1:${baselinePort}/api/auth/me/`, seconds: 2 });
    log(`baseline: bare Express 5 JSON handler, ${seconds} s`);
    const bareWindow = cpuWindow({ loadGenerator: process.pid, bareExpress: baseline.pid });
    const bare = await load({ url: `https://127.0.0.1:${baselinePort}/api/auth/me/`, seconds });
    const bareCpuMsPerRequest = bareWindow.stop(bare.total);
    log(`gateway: GET /api/auth/me/ through gateway → gRPC → auth, ${seconds} s`);
    const window = cpuWindow(clusterPids(cluster));
    const through = await load({ url: gatewayUrl, headers, seconds });
    const cpuMsPerRequest = window.stop(through.total);

    // The cost split, each part measured on its own in this process.
    const jwt = require('jsonwebtoken');
    const { GrpcClient } = require(path.join(ROOT, 'libs/grpc/dist'));
    const authClient = new GrpcClient('auth/v1/auth.proto', 'auth.v1.AuthService', cluster.authAddress, internalTls(cluster, 'gateway'));
    const { keys } = await authClient.call('GetSigningKeys', {});
    const jwtVerify = await timeSequential(2000, () => jwt.verify(access, keys[0].publicKeyPem, { algorithms: ['RS256'] }));
    const context = { workspaceId: user.workspaceId, actorId: user.id, actorKind: 'user' };
    await authClient.call('GetCurrentUser', {}, context);
    const grpcHop = await timeSequential(2000, () => authClient.call('GetCurrentUser', {}, context));
    // What the hop costs in CPU when calls overlap as they do under the load: this process stands in
    // for the gateway's client side, and auth's own CPU is the server side.
    const grpcHopCpuMsPerCall = await hopCpuMsPerCall(
      () => authClient.call('GetCurrentUser', {}, context),
      cluster.processes.get('auth').child.pid,
    );
    authClient.close();
    const http2FloorCpuMsPerCall = await http2Floor(cluster, context);
    const { openRateLimitCounter } = require(path.join(ROOT, 'libs/rate-limit/dist'));
    const { createLogger } = require(path.join(ROOT, 'libs/observability/dist'));
    const counter = await openRateLimitCounter(
      { kind: 'redis', url: process.env.REDIS_URL || 'redis://127.0.0.1:6379', keyPrefix: `bench:${Date.now()}:` },
      createLogger('bench', { level: 'warn' }),
    );
    const limiter = await timeSequential(2000, (i) => counter.consume(`ws_bench_${i % 10}`, 1e9, 60));
    await counter.close();

    return {
      name: 'gateway: authenticated, rate-limited GET /api/auth/me/',
      ratio: through.requestsPerSecond / bare.requestsPerSecond,
      target: '≥ 0.5',
      baseline: bare,
      measured: through,
      cpuMsPerRequest: { baseline: bareCpuMsPerRequest, measured: cpuMsPerRequest },
      costSplitMs: { jwtVerifyUncached: jwtVerify, rateLimitConsumeRedis: limiter, grpcHopGetCurrentUser: grpcHop },
      grpcHopCpuMsPerCall,
      http2FloorCpuMsPerCall,
    };
  } finally {
    baseline.kill();
  }
};

/**
 * The hop's floor: the exchange grpc-js makes for one unary call (request headers with the caller
 * metadata, one framed message each way, trailers), over bare node:http2 with the same mutual TLS,
 * 32 at a time from this process to bench/http2-floor-server.js; CPU ms per call on each side.
 */
async function http2Floor(cluster, context) {
  const server = fork(path.join(__dirname, '../http2-floor-server.js'), [cluster.internalTlsDirs.auth]);
  try {
    const port = await new Promise((resolve) => server.once('message', (m) => resolve(m.port)));
    const tls = internalTls(cluster, 'gateway');
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca: tls.ca, cert: tls.cert, key: tls.key, servername: 'auth' });
    const request = Buffer.from([0, 0, 0, 0, 0]);
    const call = () =>
      new Promise((resolve, reject) => {
        const stream = session.request({
          ':method': 'POST',
          ':path': '/auth.v1.AuthService/GetCurrentUser',
          'content-type': 'application/grpc',
          te: 'trailers',
          'grpc-timeout': '5000m',
          'x-crm-workspace-id': context.workspaceId,
          'x-crm-actor-id': context.actorId,
          'x-crm-actor-kind': context.actorKind,
          'x-crm-request-id': 'bench',
        });
        stream.on('data', () => {});
        stream.on('end', resolve);
        stream.on('error', reject);
        stream.end(request);
      });
    const perCall = await hopCpuMsPerCall(call, server.pid);
    session.close();
    return perCall;
  } finally {
    server.kill();
  }
}

/** CPU ms per call in this process (the client) and `serverPid`, 32 calls at a time, after a warm-up. */
async function hopCpuMsPerCall(call, serverPid) {
  const concurrentCalls = async (calls) => {
    let started = 0;
    const caller = async () => {
      while (started++ < calls) await call();
    };
    await Promise.all(Array.from({ length: 32 }, caller));
  };
  await concurrentCalls(2000);
  const window = cpuWindow({ client: process.pid, server: serverPid });
  await concurrentCalls(HOP_CALLS);
  return window.stop(HOP_CALLS);
}
