// Records suite: list, filtered list and search latency on a workspace of 100,000 contacts, and
// create throughput, through gateway → gRPC → records. Every figure is divided by two baselines
// measured in the same run: the gateway's own authenticated GET /api/auth/me/ (the primary one:
// it pays the same TLS, authentication, rate limit and gRPC hop, so the ratio shows what the
// records path adds on top) and the bare Express 5 handler (what the gateway suite divides by).
'use strict';
const { fork } = require('node:child_process');
const path = require('node:path');
const autocannon = require('autocannon');
const { load } = require('../load');
const { internalTls, signUpUnlimited } = require('../support');

const ROOT = path.resolve(__dirname, '../..');
const CONTACTS = 100_000;
const BATCH = 1000;
const PARALLEL_BATCHES = 4;
const { CONTACT_STAGES: STAGES } = require(path.join(ROOT, 'libs/vocabulary/dist'));

/** 100,000 contacts straight into records over gRPC (the import workers' call), a few batches at a time. */
async function seed(cluster, user, log) {
  if (!cluster.recordsAddress) throw new Error('scripts/local-cluster.js does not report recordsAddress');
  const { GrpcClient } = require(path.join(ROOT, 'libs/grpc/dist'));
  const client = new GrpcClient(
    'records/v1/records.proto',
    'records.v1.RecordsService',
    cluster.recordsAddress,
    internalTls(cluster, 'import-worker'),
  );
  const context = { workspaceId: user.workspaceId, actorId: user.id, actorKind: 'user', requestId: 'bench-seed' };
  const started = Date.now();
  const batches = Math.ceil(CONTACTS / BATCH);
  let nextBatch = 0;
  const worker = async () => {
    while (nextBatch < batches) {
      const b = nextBatch++;
      const rows = [];
      for (let i = 0; i < BATCH; i += 1) {
        const n = b * BATCH + i;
        rows.push({
          row: i + 1,
          firstName: `First${n % 997}`,
          lastName: `Last${n}`,
          email: `person${n}@example${n % 89}.com`,
          phone: `+1 555 ${String(n).padStart(7, '0')}`,
          stage: STAGES[n % STAGES.length],
          tags: n % 2 ? ['odd'] : ['even'],
        });
      }
      const result = await client.call('BatchCreateContacts', { idempotencyKey: `bench-seed:${b}`, rows }, context, { timeoutMs: 120_000 });
      if (result.errors.length > 0 || result.duplicates.length > 0)
        throw new Error(`seed batch ${b}: ${JSON.stringify(result.errors[0] ?? result.duplicates[0])}`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_BATCHES }, worker));
  client.close();
  const ms = Date.now() - started;
  log(`seeded ${CONTACTS} contacts in ${(ms / 1000).toFixed(1)} s`);
  return ms;
}

/**
 * Seeding leaves 100,000 contact_created events for the outbox relay to publish and automation to
 * consume; measuring before they are through would measure that backlog. So: wait until the
 * records store has no pending outbox event (read-only peek at the embedded store, when there is
 * one) and a single GET /api/auth/me/ answers quickly again.
 */
async function settle(cluster, api, access, log, timeoutMs = 300_000) {
  const started = Date.now();
  const file = path.join(cluster.dataDir, 'records', 'records.db');
  const fs = require('node:fs');
  let pending = () => 0;
  if (fs.existsSync(file)) {
    const Database = require('better-sqlite3');
    const db = new Database(file, { readonly: true, fileMustExist: true });
    const statement = db.prepare(`SELECT count(*) FROM outbox WHERE json_extract(doc, '$.status') = 'pending'`).pluck();
    pending = () => statement.get();
    process.once('exit', () => db.close());
  }
  for (;;) {
    const left = pending();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 5; i += 1) await api('GET', '/api/auth/me/', undefined, access);
    const ms = Number(process.hrtime.bigint() - t0) / 5e6;
    if (left === 0 && ms < 25) break;
    if (Date.now() - started > timeoutMs) {
      log(`still settling after ${timeoutMs / 1000} s (pending outbox ${left}, GET /api/auth/me/ ${ms.toFixed(0)} ms); measuring anyway`);
      break;
    }
    log(`settling: pending outbox events ${left}, GET /api/auth/me/ ${ms.toFixed(0)} ms`);
    await new Promise((r) => setTimeout(r, 5000));
  }
  return (Date.now() - started) / 1000;
}

/** autocannon with a method and a body (bench/load.js only does GETs). */
function loadRequest({ url, headers, seconds, method, body, connections = 32 }) {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, headers, method, body, duration: seconds, connections, tlsOptions: { rejectUnauthorized: false } },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          requestsPerSecond: result.requests.average,
          p50: result.latency.p50,
          p99: result.latency.p99,
          total: result.requests.total,
          failed: result.non2xx + result.errors + result.timeouts,
        });
      },
    );
  });
}

const ratios = (measured, baseline) => ({
  requestsPerSecond: measured.requestsPerSecond / baseline.requestsPerSecond,
  p50: measured.p50 / Math.max(baseline.p50, 0.001),
  p99: measured.p99 / Math.max(baseline.p99, 0.001),
});

module.exports = async function recordsSuite({ cluster, api, seconds, log }) {
  const { access, user } = await signUpUnlimited(cluster, api, 'records');
  const seedMs = await seed(cluster, user, log);
  const settleSeconds = await settle(cluster, api, access, log);
  const gateway = cluster.gateways[0].url;
  const headers = { authorization: `Bearer ${access}` };
  const count = (await api('GET', '/api/contacts/?limit=1', undefined, access)).count;
  if (count < CONTACTS) throw new Error(`expected ${CONTACTS} contacts, the list counts ${count}`);

  const baselineServer = fork(path.join(__dirname, '../baseline-server.js'), [
    path.join(cluster.dataDir, 'tls/cert.pem'),
    path.join(cluster.dataDir, 'tls/key.pem'),
  ]);
  const baselinePort = await new Promise((resolve) => baselineServer.once('message', (m) => resolve(m.port)));
  const targets = {
    listPage: `${gateway}/api/contacts/?limit=20`,
    filteredList: `${gateway}/api/contacts/?stage=customer`,
    search: `${gateway}/api/contacts/?search=person4242`,
    // Issue 18's shapes: a common term (First12, First120–First129: about 1,100 contacts), a more
    // common one (First1…: 11,211), one in every contact (their email domain: 100,000), a miss,
    // and a term too short for the trigram index (two characters: a scan).
    searchCommon: `${gateway}/api/contacts/?search=first12`,
    searchVeryCommon: `${gateway}/api/contacts/?search=first1`,
    searchEveryContact: `${gateway}/api/contacts/?search=example`,
    searchMiss: `${gateway}/api/contacts/?search=zzzz`,
    searchShort: `${gateway}/api/contacts/?search=zz`,
  };
  // Issue 18 measured lists and searches with 4 connections; its targets are p99s at that load.
  const FEW_CONNECTIONS = 4;
  try {
    log('warming up');
    await load({ url: `https://127.0.0.1:${baselinePort}/api/auth/me/`, seconds: 2 });
    await load({ url: `${gateway}/api/auth/me/`, headers, seconds: 2 });
    for (const url of Object.values(targets)) await load({ url, headers, seconds: 1 });

    log(`baseline: bare Express 5 JSON handler, ${seconds} s`);
    const bare = await load({ url: `https://127.0.0.1:${baselinePort}/api/auth/me/`, seconds });
    log(`baseline: gateway GET /api/auth/me/ (auth, rate limit, gRPC hop), ${seconds} s`);
    const me = await load({ url: `${gateway}/api/auth/me/`, headers, seconds });
    const measured = {};
    for (const [name, url] of Object.entries(targets)) {
      log(`${name}: GET ${url.replace(gateway, '')}, ${seconds} s`);
      measured[name] = await load({ url, headers, seconds });
    }
    // The same baselines at 4 connections: what the p99 aims compare with.
    const meAtFour = await load({ url: `${gateway}/api/auth/me/`, headers, seconds, connections: FEW_CONNECTIONS });
    const bareAtFour = await load({ url: `https://127.0.0.1:${baselinePort}/api/auth/me/`, seconds, connections: FEW_CONNECTIONS });
    const atFourConnections = {};
    for (const [name, url] of Object.entries(targets)) {
      log(`${name}: GET ${url.replace(gateway, '')}, ${FEW_CONNECTIONS} connections, ${seconds} s`);
      atFourConnections[name] = await load({ url, headers, seconds, connections: FEW_CONNECTIONS });
    }
    log(`create: POST /api/contacts/, ${seconds} s`);
    measured.create = await loadRequest({
      url: `${gateway}/api/contacts/`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Bench', lastName: 'Create', email: 'bench-create@example.com', stage: 'new', tags: ['bench'] }),
      seconds,
    });

    const versusMe = Object.fromEntries(Object.entries(measured).map(([name, m]) => [name, ratios(m, me)]));
    const versusBare = Object.fromEntries(Object.entries(measured).map(([name, m]) => [name, ratios(m, bare)]));
    return {
      name: `records: list, filtered list, search and create on a ${CONTACTS}-contact workspace`,
      // The headline: a list page's req/s against the gateway's GET /api/auth/me/ in the same run.
      ratio: versusMe.listPage.requestsPerSecond,
      target: 'list page ≥ 0.3 of GET /api/auth/me/ req/s',
      seedSeconds: seedMs / 1000,
      settleSeconds,
      baselines: { gatewayMe: me, bareExpress: bare, gatewayMeAtFourConnections: meAtFour, bareExpressAtFourConnections: bareAtFour },
      measured,
      atFourConnections,
      ratiosVersusGatewayMe: versusMe,
      ratiosVersusBareExpress: versusBare,
      atFourConnectionsVersusGatewayMe: Object.fromEntries(
        Object.entries(atFourConnections).map(([name, m]) => [name, ratios(m, meAtFour)]),
      ),
    };
  } finally {
    baselineServer.kill();
  }
};
