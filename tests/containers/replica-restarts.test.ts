/**
 * The whole system from its images (2 of every server, 2 workers per worker role), with traffic
 * through the gateway Service while a 20,000-row import and a batch of automation waits are in
 * flight: one replica of each kind is stopped with SIGTERM (10 s grace) and started again, then
 * the other with SIGKILL. The import completes with every row once, every wait step runs once, no
 * request gets a 5xx other than a 503, and every request whose connection was cut gets an answer
 * when retried (a POST with its Idempotency-Key: a killed gateway's claim lapses within its lease).
 * Every container runs under its pod's memory limit in the chart's values.yaml, and none goes over it.
 * Runs only against containers (npm run test:containers), in the jest project `containers`.
 */
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import { expectEveryRowOnce, peopleCsv, RecordsReader, uploadCsv } from '../import/import-support';
import { TrafficProbe } from './traffic-probe';

jest.setTimeout(900_000);

type Kinds = Map<string, string>;
const ROWS = 20_000;
const LEADS = 12;

let t: TestCluster;
let service: ApiClient;
let records: RecordsReader;

beforeAll(async () => {
  if (process.env.CRM_TEST_CLUSTER !== 'containers') throw new Error('run with CRM_TEST_CLUSTER=containers (npm run test:containers)');
  t = await startTestCluster({
    gateways: 2,
    workers: 2,
    replicas: 2,
    // A one-day wait lasts 86 s: long enough to be pending through both rounds of stops.
    env: { CRM_WAIT_TIME_SCALE: '0.001', SWEEP_INTERVAL_MS: '1000', SWEEP_GRACE_MS: '1000', IMPORT_STALL_MS: '5000' },
  });
  const cluster = t.cluster as typeof t.cluster & { serviceUrl: string };
  service = new ApiClient(cluster.serviceUrl, cluster.ca);
  records = new RecordsReader(t.cluster);
}, 300_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  records?.close();
  await service?.close();
  await t?.stop();
}, 120_000);

/** The first and second replica of every kind: records and records-2, import-worker-1 and import-worker-2, ... */
function replicasByKind(kinds: Kinds): [string, string][] {
  const byKind = new Map<string, string[]>();
  for (const [name, kind] of kinds) byKind.set(kind, [...(byKind.get(kind) ?? []), name]);
  return [...byKind.values()].map((names) => [names[0]!, names[1]!]);
}

type Container = {
  stop(signal?: string, graceMs?: number): Promise<void>;
  start(): void;
  exitCode(): Promise<number>;
  unexpectedExits: number[];
  memoryLimitMb(): Promise<number>;
};
const container = (name: string) => t.cluster.processes.get(name) as unknown as Container;
const ready = (name: string) => (t.cluster as typeof t.cluster & { ready(name: string): Promise<void> }).ready(name);

/** Stops the replicas together, then starts them again; resolves with each one's exit code once all are ready. */
async function stopAndStart(names: string[], signal: 'SIGTERM' | 'SIGKILL'): Promise<Record<string, number>> {
  await Promise.all(names.map((name) => container(name).stop(signal, 10_000)));
  const codes = Object.fromEntries(await Promise.all(names.map(async (name) => [name, await container(name).exitCode()] as const)));
  for (const name of names) container(name).start();
  await Promise.all(names.map(ready));
  return codes;
}

it('a gateway told to stop fails its readiness first, keeps serving, then exits 0 within its grace', async () => {
  const gateway = t.gateways[1]!;
  expect((await gateway.get('/readyz')).status).toBe(200);
  const stopping = container('gateway-2').stop('SIGTERM', 10_000);
  // Until the signal lands (podman stop takes a moment): a closed listener before a failed readiness ends the loop too.
  const deadline = Date.now() + 10_000;
  let readiness = 200;
  while (readiness === 200 && Date.now() < deadline)
    readiness = await gateway.get('/readyz').then(
      (r) => r.status,
      () => -1,
    );
  // Not ready, yet still answering: the listener stays open for DRAIN_DELAY_MS.
  expect(readiness).toBe(503);
  expect((await gateway.get('/healthz')).status).toBe(200);
  await stopping;
  expect(await container('gateway-2').exitCode()).toBe(0);
  container('gateway-2').start();
  await ready('gateway-2');
});

it('keeps every import row and every wait step exactly once while replicas of each kind stop and start', async () => {
  const owner = await signUp(service);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  const api = service.withToken(owner.access);

  const rule = await api.post('/api/automations/rules/', {
    name: 'Waits through restarts',
    trigger: 'lead_created',
    triggerConditions: [{ field: 'company', operator: 'eq', value: 'Replica Co' }],
    steps: [
      { type: 'wait', order: 1, config: { duration: 1, unit: 'days' } },
      { type: 'send_notification', order: 2, config: { recipients: ['assigned_user'], message: 'Waited through restarts' } },
    ],
  });
  expect(rule.status).toBe(201);
  expect((await api.post(`/api/automations/rules/${rule.body.id}/activate/`)).status).toBe(200);
  const leads: string[] = [];
  for (let i = 0; i < LEADS; i++) {
    const lead = await api.post('/api/leads/', {
      firstName: 'Ada',
      lastName: `Replica${i}`,
      email: `replica-${i}-${randomBytes(3).toString('hex')}@example.com`,
      company: 'Replica Co',
      assignedTo: owner.user.id,
    });
    expect(lead.status).toBe(201);
    leads.push(lead.body.id);
  }

  const uid = await uploadCsv(service, owner.access, peopleCsv(ROWS, `replicas-${randomBytes(3).toString('hex')}`));
  const probe = new TrafficProbe(api);
  probe.start();
  try {
    const pairs = replicasByKind((t.cluster as typeof t.cluster & { kinds: Kinds }).kinds);
    expect(pairs.map(([first]) => first).sort()).toEqual(
      ['auth', 'automation', 'automation-worker-1', 'gateway-1', 'import', 'import-worker-1', 'records'].sort(),
    );
    probe.enter('SIGTERM round');
    const drained = await stopAndStart(
      pairs.map(([first]) => first),
      'SIGTERM',
    );
    // 0: each drained and exited by itself, inside the 10 s grace (137 would be podman's SIGKILL at its end).
    expect(drained).toEqual(Object.fromEntries(pairs.map(([first]) => [first, 0])));
    probe.enter('SIGKILL round', true);
    const killed = await stopAndStart(
      pairs.map(([, second]) => second),
      'SIGKILL',
    );
    expect(killed).toEqual(Object.fromEntries(pairs.map(([, second]) => [second, 137])));
    probe.enter('after');
    const job = await expectEveryRowOnce(service, records, owner, uid, ROWS);
    expect(job.successCount).toBe(ROWS);

    const logs = await eventuallyAllFinished(api, rule.body.id);
    expect(logs.map((log: any) => [log.enrolledRecordId, log.status]).sort()).toEqual(leads.map((id) => [id, 'completed']).sort());
    const notifications = (await api.get('/api/notifications/?limit=100')).body.results.filter(
      (n: any) => n.message === 'Waited through restarts',
    );
    expect(notifications.map((n: any) => n.relatedTo).sort()).toEqual([...leads].sort());
  } finally {
    await probe.stop();
  }
  console.log(`traffic during the restarts: ${probe.summary()}`);
  if (probe.cutAndRetried().length > 0) {
    console.log(`connections cut under a request, then retried:\n${probe.cutAndRetried().join('\n')}`);
    console.log(`connections the Services cut:\n${(t.cluster as typeof t.cluster & { serviceCuts(): string[] }).serviceCuts().join('\n')}`);
  }
  if (probe.unexpected().length > 0 || probe.cutAndRetried().length > 0)
    for (const name of ['gateway-1', 'gateway-2']) console.log(`${name}'s log:\n${t.cluster.processes.get(name)!.tail(80)}`);
  expect(probe.unexpected()).toEqual([]);
  expect(probe.answered).toBeGreaterThan(0);
});

it("ran every container under its pod's memory limit, and none exited unasked (an OOM kill is one)", async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const runner = require('../../scripts/container-cluster.js') as {
    podMemoryLimitsMb(topology: object): Record<string, number>;
    readTopology(): object;
  };
  const chartLimitsMb = runner.podMemoryLimitsMb(runner.readTopology());
  const kinds = (t.cluster as typeof t.cluster & { kinds: Kinds }).kinds;
  const seen = await Promise.all(
    [...kinds].map(async ([name, kind]) => ({
      name,
      limitMb: await container(name).memoryLimitMb(),
      chartMb: chartLimitsMb[kind],
      unexpectedExits: container(name).unexpectedExits,
    })),
  );
  expect(seen.map(({ name, limitMb }) => [name, limitMb])).toEqual(seen.map(({ name, chartMb }) => [name, chartMb]));
  // An OOM kill is an exit nobody asked for (137): podman's OOMKilled flag does not report it here.
  expect(seen.filter((s) => s.unexpectedExits.length > 0).map(({ name, unexpectedExits }) => [name, unexpectedExits])).toEqual([]);
});

async function eventuallyAllFinished(api: ApiClient, ruleId: string): Promise<any[]> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const logs = (await api.get(`/api/automations/rules/${ruleId}/logs/?limit=100`)).body.results;
    if (logs.length === LEADS && logs.every((log: any) => log.status !== 'in_progress')) return logs;
    if (Date.now() > deadline) throw new Error(`automation logs not finished: ${JSON.stringify(logs.map((l: any) => l.status))}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
