// Gateway suite: an authenticated, rate-limited GET /api/auth/me/ through gateway → gRPC → auth and
// back, against a bare Express 5 JSON handler; plus the cost split of the hot path's parts, and the
// CPU the gRPC hop alone costs its client and its server.
'use strict';
const { fork } = require('node:child_process');
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
    const concurrentCalls = async (calls) => {
      let started = 0;
      const caller = async () => {
        while (started++ < calls) await authClient.call('GetCurrentUser', {}, context);
      };
      await Promise.all(Array.from({ length: 32 }, caller));
    };
    await concurrentCalls(2000);
    const hopWindow = cpuWindow({ client: process.pid, server: cluster.processes.get('auth').child.pid });
    await concurrentCalls(HOP_CALLS);
    const grpcHopCpuMsPerCall = hopWindow.stop(HOP_CALLS);
    authClient.close();
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
    };
  } finally {
    baseline.kill();
  }
};
