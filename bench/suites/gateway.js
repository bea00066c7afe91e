// Gateway suite: authenticated, rate-limited GET /api/auth/me/ (gateway → gRPC → auth) and
// GET /api/contacts/{id}/ (gateway → gRPC → records) against the floor of the stack they are built
// on (bench/grpc-floor.js: bare Express 5 + one grpc-js unary call with the same mutual TLS), with
// bare Express 5 beside it; plus the cost split of the hot path's parts, the CPU the gRPC hop alone
// costs its client and its server, and the same exchange over bare node:http2. Runs against the
// local cluster (the floor's gRPC server in another process) and npm start (in the same process).
'use strict';
const { fork } = require('node:child_process');
const http2 = require('node:http2');
const path = require('node:path');
const { load, timeSequential } = require('../load');
const { internalTls, signUpUnlimited } = require('../support');
const { clusterPids, cpuWindow } = require('../cpu-time');

const ROOT = path.resolve(__dirname, '../..');
const HOP_CALLS = 8000;
// The load: 50 connections over HTTPS.
const CONNECTIONS = 50;
const ROUNDS = 2;

/** The gateway's public certificate and key, where each target keeps them. */
function publicTls(cluster) {
  return cluster.target === 'npm start'
    ? [path.join(cluster.dataDir, 'tls/localhost.crt'), path.join(cluster.dataDir, 'tls/localhost.key')]
    : [path.join(cluster.dataDir, 'tls/cert.pem'), path.join(cluster.dataDir, 'tls/key.pem')];
}

/** The processes whose CPU a gateway request costs: every cluster process, or npm start's one. */
function targetPids(cluster) {
  return cluster.processes ? clusterPids(cluster) : { loadGenerator: process.pid, npmStart: cluster.pid };
}

/** Forks a bench server script with arguments and resolves to its first message ({ port, pids? }) and the child. */
async function forkServer(script, args) {
  const child = fork(path.join(__dirname, '..', script), args);
  const message = await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening`)));
  });
  return { child, ...message };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

module.exports = async function gatewaySuite({ cluster, api, seconds, log }) {
  const npmStart = cluster.target === 'npm start';
  const { access, user } = await signUpUnlimited(cluster, api, 'gateway');
  const contact = await api(
    'POST',
    '/api/contacts/',
    { firstName: 'Gateway', lastName: 'Bench', email: 'gateway-bench@example.com' },
    access,
  );
  const gateway = cluster.gateways[0].url;
  const headers = { authorization: `Bearer ${access}` };
  const [certFile, keyFile] = publicTls(cluster);

  // The floor's gRPC server where the product's auth is: in the gateway's process with npm start
  // (over a unix socket, as npm start's internal calls), in a process of its own in the cluster (TCP).
  const floorOptions = {
    certFile,
    keyFile,
    internalTlsRoot: path.dirname(cluster.internalTlsDirs.auth),
    grpcIn: npmStart ? 'same' : 'child',
    transport: npmStart ? 'unix' : 'tcp',
  };
  const floorServer = await forkServer('grpc-floor-server.js', [JSON.stringify(floorOptions)]);
  const bareServer = await forkServer('baseline-server.js', [certFile, keyFile]);
  const urls = {
    floor: `https://127.0.0.1:${floorServer.port}/api/auth/me/`,
    me: `${gateway}/api/auth/me/`,
    contact: `${gateway}/api/contacts/${contact.id}/`,
    bareExpress: `https://127.0.0.1:${bareServer.port}/api/auth/me/`,
  };
  const loadOf = (name, secs) =>
    load({ url: urls[name], headers: name === 'me' || name === 'contact' ? headers : {}, seconds: secs, connections: CONNECTIONS });
  const pidsOf = {
    floor: { loadGenerator: process.pid, ...floorServer.pids },
    me: targetPids(cluster),
    contact: targetPids(cluster),
    bareExpress: { loadGenerator: process.pid, bareExpress: bareServer.child.pid },
  };
  try {
    log('warming up');
    for (const name of Object.keys(urls)) await loadOf(name, 2);
    // Alternating rounds, each path's ratio against the floor of its own round: the machine's load
    // drifts over a minute, and a figure is only comparable with one taken in the same minutes.
    const rounds = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      const round = {};
      for (const name of Object.keys(urls)) {
        log(`round ${r + 1}/${ROUNDS}: ${name} ${urls[name].replace(/^https:\/\/[^/]+/, '')}, ${CONNECTIONS} connections, ${seconds} s`);
        const window = cpuWindow(pidsOf[name]);
        const result = await loadOf(name, seconds);
        round[name] = { ...result, cpuMsPerRequest: window.stop(result.total) };
      }
      round.ratios = {
        meVersusFloor: round.me.requestsPerSecond / round.floor.requestsPerSecond,
        contactVersusFloor: round.contact.requestsPerSecond / round.floor.requestsPerSecond,
        floorVersusBareExpress: round.floor.requestsPerSecond / round.bareExpress.requestsPerSecond,
      };
      rounds.push(round);
    }
    const ratios = {
      meVersusFloor: median(rounds.map((r) => r.ratios.meVersusFloor)),
      contactVersusFloor: median(rounds.map((r) => r.ratios.contactVersusFloor)),
      floorVersusBareExpress: median(rounds.map((r) => r.ratios.floorVersusBareExpress)),
    };

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
    // for the gateway's client side, and auth's own CPU is the server side (npm start's whole process).
    const authPid = npmStart ? cluster.pid : cluster.processes.get('auth').child.pid;
    const grpcHopCpuMsPerCall = await hopCpuMsPerCall(() => authClient.call('GetCurrentUser', {}, context), authPid);
    authClient.close();
    const http2FloorCpuMsPerCall = await http2Floor(cluster, context);
    let limiter;
    if (!npmStart) {
      const { openRateLimitCounter } = require(path.join(ROOT, 'libs/rate-limit/dist'));
      const { createLogger } = require(path.join(ROOT, 'libs/observability/dist'));
      const counter = await openRateLimitCounter(
        { kind: 'redis', url: process.env.REDIS_URL || 'redis://127.0.0.1:6379', keyPrefix: `bench:${Date.now()}:` },
        createLogger('bench', { level: 'warn' }),
      );
      limiter = await timeSequential(2000, (i) => counter.consume(`ws_bench_${i % 10}`, 1e9, 60));
      await counter.close();
    }

    return {
      name: `gateway: GET /api/auth/me/ and GET /api/contacts/{id}/ against the floor of the stack (${cluster.target ?? 'local cluster'})`,
      ratio: Math.min(ratios.meVersusFloor, ratios.contactVersusFloor),
      target: '≥ 0.8 of the floor (bare Express 5 + one grpc-js unary call with mutual TLS) for each path',
      floor: `bare Express 5 HTTPS → grpc-js unary call, mutual TLS → bare grpc-js server in ${npmStart ? 'the same process (unix socket)' : 'another process (TCP)'}`,
      connections: CONNECTIONS,
      ratios,
      rounds,
      costSplitMs: { jwtVerifyUncached: jwtVerify, rateLimitConsumeRedis: limiter, grpcHopGetCurrentUser: grpcHop },
      grpcHopCpuMsPerCall,
      http2FloorCpuMsPerCall,
    };
  } finally {
    floorServer.child.kill();
    bareServer.child.kill();
  }
};
module.exports.targets = ['cluster', 'npm-start'];

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
