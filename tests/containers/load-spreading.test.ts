/**
 * gRPC load spreads over the replicas of a server when the system runs from its images and its
 * callers are addressed as the chart addresses them: `dns:///crm-records-headless:<port>`, a headless
 * Service whose answer names every ready replica (scripts/container-cluster.js `headless`: each
 * replica on an address of its own, the name answered by the containers' /etc/hosts). Three records
 * replicas behind two gateways under HTTP load each serve a fair share of the calls, read from each
 * replica's own `grpc_server_handled_total`; a fourth started under load takes calls within seconds,
 * once the servers' connection age (shortened here to 3 s; 30 s in production) turns the callers'
 * connections over and they ask the name again. And a gateway that stops answering (SIGSTOP) is
 * restarted by its liveness probe as the chart renders it (every 10 s, 3 failures, then the pod's
 * 30 s grace), while the other gateway serves.
 * Runs only against containers (npm run test:containers), in the jest project `containers`.
 */
import { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';

jest.setTimeout(600_000);

const CONNECTION_AGE_MS = 3_000;

type HeadlessCluster = TestCluster['cluster'] & {
  metricsUrls(): Map<string, string>;
  probeHistory(name: string): { restarts: number; events: string[]; ready: boolean };
  addReplica(key: string): Promise<{ name: string; metricsUrl: string }>;
};

let t: TestCluster;
let cluster: HeadlessCluster;
let apis: ApiClient[];
let contactId: string;

beforeAll(async () => {
  if (process.env.CRM_TEST_CLUSTER !== 'containers') throw new Error('run with CRM_TEST_CLUSTER=containers (npm run test:containers)');
  t = await startTestCluster({
    headless: true,
    // The kubelet's probes as the chart renders them (startup, readiness, liveness with restarts).
    probes: true,
    gateways: 2,
    replicas: 1,
    counts: { records: 3 },
    withWorkers: false,
    env: { GRPC_MAX_CONNECTION_AGE_MS: String(CONNECTION_AGE_MS) },
  });
  cluster = t.cluster as HeadlessCluster;
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  apis = t.gateways.map((api) => api.withToken(owner.access));
  const created = await apis[0]!.call('POST', '/api/contacts/', {
    body: { firstName: 'Spread', lastName: 'Load', email: 'spread@example.com' },
  });
  expect(created.status).toBe(201);
  contactId = created.body.id;
}, 300_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
}, 120_000);

/** The GetContact calls a records replica answered, from its own metrics. */
async function handled(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text
    .split('\n')
    .find((row) => row.startsWith('grpc_server_handled_total{') && row.includes('method="GetContact"') && row.includes('code="OK"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

const recordsReplicas = () => [...cluster.metricsUrls()].filter(([name]) => name === 'records' || name.startsWith('records-'));

/** GET /api/contacts/{id}/ through both gateways, 8 at a time, until `until` resolves; every answer must be a 200. */
async function loadUntil(until: Promise<unknown>): Promise<number> {
  let done = false;
  let sent = 0;
  void until.finally(() => (done = true));
  await Promise.all(
    Array.from({ length: 8 }, async (_, worker) => {
      while (!done) {
        const gateway = worker % apis.length;
        const response = await apis[gateway]!.call('GET', `/api/contacts/${contactId}/`);
        if (response.status !== 200) explainFailure(gateway, response);
        expect(response.status).toBe(200);
        sent += 1;
      }
    }),
  );
  return sent;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a failed request's gateway logged of it (the backing call, its status and grpc-js's words), for a run that cannot be repeated at will. */
function explainFailure(gateway: number, response: { status: number; headers: Record<string, string>; body: unknown }): void {
  const requestId = response.headers['x-request-id'];
  const proc = cluster.processes.get(`gateway-${gateway + 1}`) as unknown as { tail(lines?: number): string } | undefined;
  const logged = (proc?.tail(400) ?? '').split('\n').filter((line) => requestId && line.includes(requestId));
  console.log(
    `gateway-${gateway + 1} answered ${response.status} ${JSON.stringify(response.body)} to ${requestId}; it logged:\n${logged.join('\n')}`,
  );
}

test('three records replicas each serve a fair share of the gateways’ calls', async () => {
  const replicas = recordsReplicas();
  expect(replicas.map(([name]) => name)).toEqual(['records', 'records-2', 'records-3']);
  const before = await Promise.all(replicas.map(([, url]) => handled(url)));
  const sent = await loadUntil(sleep(12_000));
  const after = await Promise.all(replicas.map(([, url]) => handled(url)));
  const served = after.map((n, i) => n - before[i]!);
  const total = served.reduce((a, b) => a + b, 0);
  const shares = served.map((n) => n / total);
  console.log(
    `${sent} requests; GetContact calls per records replica: ${served.join(' / ')} (shares ${shares.map((s) => `${Math.round(s * 100)}%`).join(' / ')})`,
  );
  expect(total).toBeGreaterThanOrEqual(sent); // one GetContact per request at least
  // A fair share is a third; pick_first through one ClusterIP would give one replica all of it.
  for (const share of shares) expect(share).toBeGreaterThan(0.2);
});

test('a replica added under load starts taking calls within seconds', async () => {
  let added: { name: string; metricsUrl: string } | undefined;
  let firstCallAfterMs = -1;
  const watch = (async () => {
    added = await cluster.addReplica('records');
    const readyAt = Date.now();
    while (Date.now() - readyAt < 30_000) {
      if ((await handled(added.metricsUrl)) > 0) {
        firstCallAfterMs = Date.now() - readyAt;
        return;
      }
      await sleep(250);
    }
  })();
  await loadUntil(watch);
  await watch;
  console.log(`${added!.name} took its first call ${firstCallAfterMs} ms after it was ready`);
  expect(firstCallAfterMs).toBeGreaterThanOrEqual(0);
  // The callers' connections age out every 3 s and they ask the name again at most every 5 s.
  expect(firstCallAfterMs).toBeLessThan(15_000);
});

test('a gateway that stops answering is restarted by its liveness probe, and serves again', async () => {
  const frozen = 'gateway-2';
  const before = cluster.probeHistory(frozen);
  expect(before).toMatchObject({ restarts: 0, ready: true });
  const container = cluster.processes.get(frozen) as unknown as { container: string };
  const { execFileSync } = await import('node:child_process');
  execFileSync('podman', ['kill', '--signal', 'SIGSTOP', container.container]);
  const startedAt = Date.now();
  // The other gateway keeps answering meanwhile.
  const restarted = (async () => {
    while (cluster.probeHistory(frozen).restarts === 0) await sleep(500);
    await (cluster as unknown as { ready(name: string): Promise<void> }).ready(frozen);
  })();
  while (cluster.probeHistory(frozen).restarts === 0 || !cluster.probeHistory(frozen).ready) {
    const response = await apis[0]!.call('GET', `/api/contacts/${contactId}/`);
    expect(response.status).toBe(200);
    await sleep(1_000);
    if (Date.now() - startedAt > 180_000) throw new Error(`not restarted: ${JSON.stringify(cluster.probeHistory(frozen))}`);
  }
  await restarted;
  const after = cluster.probeHistory(frozen);
  console.log(`${frozen}: ${after.events.join('; ')} after ${Math.round((Date.now() - startedAt) / 1000)} s`);
  expect(after.restarts).toBe(1);
  expect(after.events).toEqual(['liveness failed 3 times: restarted']);
  const answer = await apis[1]!.call('GET', `/api/contacts/${contactId}/`);
  expect(answer.status).toBe(200);
});
