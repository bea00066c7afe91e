/**
 * Records' outbox relay with two replicas on one store, as the chart runs it: the cluster's
 * records process and a second one the test starts on the same data folder, each behind its own
 * gateway. Writes reach both replicas; a consumer on the run's bus sees what the relays publish.
 * Each event goes out once and in order per record; when the replica holding a workspace's relay
 * lease is killed (SIGKILL), the other takes the workspace over once the lease lapses.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { busLocationFromEnv, openBus, type Consumer, type MessageBus } from '@crm/bus';
import { checkHealth } from '@crm/grpc';
import { createLogger } from '@crm/observability';
import { keepAlive } from '@crm/store';
import { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import { healthOf } from '../support/internal-tls';
import { freePort, SiblingProcess, waitUntil } from '../support/sibling-process';

jest.setTimeout(300_000);

interface Delivery {
  id: string;
  recordId: string;
  firstName: string;
  at: number;
}

interface Replica {
  name: string;
  pid: number;
  api: ApiClient;
  kill(): Promise<void>;
}

const STEP = /^step-(\d+)$/;

let t: TestCluster;
let records2: SiblingProcess;
let gateway2: SiblingProcess;
let bus: MessageBus;
let consumer: Consumer;
let replicas: Replica[];
const deliveries: Delivery[] = [];

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
  const recordsPort = await freePort();
  records2 = SiblingProcess.start(t.cluster, 'records', 'records-2', { GRPC_PORT: String(recordsPort) });
  await waitUntil('records-2 gRPC health', () => checkHealth(healthOf(t.cluster, `127.0.0.1:${recordsPort}`, 'records')), 60_000);
  const gatewayPort = await freePort();
  gateway2 = SiblingProcess.start(t.cluster, 'gateway-1', 'gateway-records-2', {
    CRM_PORT: String(gatewayPort),
    CRM_DATA_DIR: join(t.cluster.dataDir, 'gateway-records-2'),
    RECORDS_GRPC_ADDR: `127.0.0.1:${recordsPort}`,
  });
  const api2 = new ApiClient(`https://localhost:${gatewayPort}`, t.cluster.ca);
  await waitUntil('the second gateway', async () => (await api2.get('/readyz')).status === 200, 60_000);
  const records1 = t.cluster.processes.get('records')!;
  replicas = [
    {
      name: 'records',
      pid: (records1 as unknown as { child: { pid: number } }).child.pid,
      api: t.api,
      kill: () => records1.stop('SIGKILL'),
    },
    { name: 'records-2', pid: records2.pid, api: api2, kill: () => records2.stop('SIGKILL') },
  ];
  bus = await openBus(
    busLocationFromEnv(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', t.cluster.busEnv),
    createLogger('test', { level: 'silent' }),
  );
  consumer = await bus.consume({ name: 'test.outbox-relay', bindings: ['records.record_updated.v1'], prefetch: 200 }, async (message) => {
    const payload = message.payload as { recordId: string; record: { firstName: string } };
    deliveries.push({ id: message.id, recordId: payload.recordId, firstName: payload.record.firstName, at: Date.now() });
  });
}, 180_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await consumer?.stop();
  await bus?.close();
  await replicas?.[1]?.api.close();
  await gateway2?.stop();
  await records2?.stop();
  await t?.stop();
}, 60_000);

async function workspaceWithLeads(count: number): Promise<{ owner: SignedUp; leads: string[] }> {
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  const leads: string[] = [];
  for (let i = 0; i < count; i++) {
    const lead = await t.api.post(
      '/api/leads/',
      { firstName: 'step-0', lastName: `Relay${i}`, email: `relay-${i}-${randomBytes(4).toString('hex')}@example.com` },
      { token: owner.access },
    );
    expect(lead.status).toBe(201);
    leads.push(lead.body.id);
  }
  return { owner, leads };
}

/**
 * Updates each lead step after step (firstName `step-N`), each step through the next live replica,
 * until `done()`; returns the steps each lead's replicas acknowledged, and when.
 */
async function updateChains(owner: SignedUp, leads: string[], live: () => Replica[], done: (step: number) => boolean) {
  const acknowledged = new Map<string, { step: number; at: number }[]>(leads.map((id) => [id, []]));
  await Promise.all(
    leads.map(async (id, chain) => {
      for (let step = 1; !done(step); step++) {
        const targets = live();
        const replica = targets[(step + chain) % targets.length]!;
        const response = await replica.api
          .patch(`/api/leads/${id}/`, { firstName: `step-${step}` }, { token: owner.access })
          .catch(() => undefined);
        if (response?.status === 200) acknowledged.get(id)!.push({ step, at: Date.now() });
      }
    }),
  );
  return acknowledged;
}

/** Waits until every thread of process `pid` is stopped (state T in /proc), at most 2 s. */
async function everyThreadStopped(pid: number): Promise<void> {
  const stopped = () =>
    readdirSync(`/proc/${pid}/task`).every((task) => {
      // The state follows the command name in parentheses, which may itself hold spaces.
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T');
    });
  const deadline = Date.now() + 2_000;
  while (!stopped()) {
    if (Date.now() > deadline) throw new Error(`process ${pid} did not stop within 2 s of SIGSTOP`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Each lead's steps as first delivered (repeats of a message id dropped). */
function deliveredSteps(leads: string[]): Map<string, number[]> {
  const seen = new Set<string>();
  const steps = new Map<string, number[]>(leads.map((id) => [id, []]));
  for (const delivery of deliveries) {
    if (seen.has(delivery.id) || !steps.has(delivery.recordId)) continue;
    seen.add(delivery.id);
    const match = STEP.exec(delivery.firstName);
    if (match) steps.get(delivery.recordId)!.push(Number(match[1]));
  }
  return steps;
}

function everyAcknowledgedStepDelivered(acknowledged: Map<string, { step: number }[]>): () => boolean {
  return () => {
    const delivered = deliveredSteps([...acknowledged.keys()]);
    return [...acknowledged].every(([id, acks]) => acks.every(({ step }) => delivered.get(id)!.includes(step)));
  };
}

function expectInOrder(leads: string[]): void {
  for (const [id, steps] of deliveredSteps(leads)) {
    expect({ id, steps }).toEqual({ id, steps: [...steps].sort((a, b) => a - b) });
    expect(new Set(steps).size).toBe(steps.length);
  }
}

it('publishes each event once, in order per record, while writes reach both replicas', async () => {
  const { owner, leads } = await workspaceWithLeads(6);
  const steps = 12;
  const acknowledged = await updateChains(
    owner,
    leads,
    () => replicas,
    (step) => step > steps,
  );
  for (const acks of acknowledged.values()) expect(acks.map((ack) => ack.step)).toEqual(Array.from({ length: steps }, (_, i) => i + 1));
  await waitUntil('every update event', everyAcknowledgedStepDelivered(acknowledged), 60_000);
  // Settled: a second publish of any event would arrive within this.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const ids = deliveries.filter((d) => leads.includes(d.recordId)).map((d) => d.id);
  expect(ids.length).toBe(leads.length * steps);
  expect(new Set(ids).size).toBe(ids.length);
  expectInOrder(leads);
});

it('takes over the workspace of a holder killed with SIGKILL once its lease lapses, with every event delivered in order', async () => {
  const { owner, leads } = await workspaceWithLeads(6);
  const workspaceId = owner.user.workspaceId;
  const storeFile = join(t.cluster.dataDir, 'records', 'records.db');
  const lease = keepAlive(new Database(storeFile, { readonly: true, fileMustExist: true }));
  const selectLease = keepAlive(lease.prepare('SELECT doc FROM outbox_workspaces WHERE id = ?'));
  const readLease = () => {
    const row = selectLease.get(workspaceId) as { doc: string } | undefined;
    const doc = row ? (JSON.parse(row.doc) as { leaseHolder?: string; leaseExpiresAt?: number }) : {};
    // The holder is `host:pid:uuid` (services/records/src/messaging/outbox-relay.ts).
    const holder = doc.leaseHolder?.split(':') ?? [];
    return { pid: Number(holder[holder.length - 2]), expiresAt: doc.leaseExpiresAt ?? 0 };
  };

  let live = replicas;
  let killedAt = 0;
  let stopAt = Number.POSITIVE_INFINITY;
  let leaseAtKill = { pid: 0, expiresAt: 0 };
  let killed: Replica | undefined;
  const chains = updateChains(
    owner,
    leads,
    () => live,
    () => Date.now() > stopAt,
  );
  try {
    // When one replica holds the workspace's lease, freeze it (SIGSTOP) so it cannot give the lease
    // up, and kill it if it still holds the lease with time left; otherwise let it go on and look again.
    // The lease is read once every thread of the holder has stopped (SIGSTOP returns before they do:
    // its write thread could still commit a release) and again as soon as SIGKILL is sent, before
    // waiting for the exit, so a slow test process cannot let the lease lapse in between.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const held = readLease();
      killed = replicas.find((replica) => replica.pid === held.pid);
      if (killed && held.expiresAt > Date.now() + 2_000) {
        process.kill(killed.pid, 'SIGSTOP');
        await everyThreadStopped(killed.pid);
        const frozen = readLease();
        if (frozen.pid === killed.pid && frozen.expiresAt > Date.now() + 1_000) break;
        process.kill(killed.pid, 'SIGCONT');
      }
      if (Date.now() > deadline) throw new Error('no replica was seen holding the relay lease');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const exited = killed.kill();
    killedAt = Date.now();
    leaseAtKill = readLease();
    await exited;
    live = replicas.filter((replica) => replica !== killed);
  } finally {
    stopAt = Date.now() + 4_000;
  }
  const acknowledged = await chains;
  lease.close();
  // The lease was still the dead holder's: the survivor had to wait for it to lapse.
  expect(leaseAtKill.pid).toBe(killed!.pid);
  expect(leaseAtKill.expiresAt).toBeGreaterThan(killedAt);

  await waitUntil('every acknowledged update event', everyAcknowledgedStepDelivered(acknowledged), 60_000);
  expectInOrder(leads);
  // Taken over within seconds: the first write acknowledged after the kill is delivered soon after the lease lapsed.
  const afterKill = [...acknowledged.values()].flat().filter((ack) => ack.at > killedAt);
  expect(afterKill.length).toBeGreaterThan(0);
  const firstAfterKill = afterKill.reduce((a, b) => (a.at < b.at ? a : b));
  const id = [...acknowledged].find(([, acks]) => acks.includes(firstAfterKill))![0];
  const delivered = deliveries.find((d) => d.recordId === id && d.firstName === `step-${firstAfterKill.step}`)!;
  const takeoverMs = delivered.at - killedAt;
  console.log(
    `relay takeover: killed ${killed!.name} holding the lease until +${leaseAtKill.expiresAt - killedAt} ms; the first later write was delivered at +${takeoverMs} ms`,
  );
  expect(takeoverMs).toBeLessThan(15_000);
});
