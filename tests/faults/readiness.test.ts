/**
 * Readiness follows what a replica needs. The cluster's RabbitMQ is a node of the test's own
 * (support/private-rabbitmq.ts), killed and restarted: the workers, which cannot work without it,
 * go NOT_SERVING on their gRPC health (what the chart's readiness probe reads) and come back by
 * themselves, while staying alive (the liveness probe only needs their port); records keeps
 * serving, since its outbox holds the events of writes made meanwhile.
 */
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { checkHealth } from '@crm/grpc';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { PrivateRabbitMq, privateRabbitMqUnavailable } from '../support/private-rabbitmq';
import { healthOf } from '../support/internal-tls';
import { freePort, SiblingProcess, waitUntil } from '../support/sibling-process';

jest.setTimeout(240_000);

const unavailable = privateRabbitMqUnavailable();
if (unavailable) console.warn(`SKIPPED readiness faults: ${unavailable}`);
const describeWithBroker = unavailable ? describe.skip : describe;

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000, () => socket.destroy());
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

describeWithBroker('readiness when the broker goes away and comes back', () => {
  let broker: PrivateRabbitMq;
  let t: TestCluster;
  const workers: { process: SiblingProcess; port: number; identity: string }[] = [];

  beforeAll(async () => {
    broker = await PrivateRabbitMq.start();
    t = await startTestCluster({ gateways: 1, workers: 1, amqpUrl: broker.url });
    // The cluster's workers listen for health on a port of their choosing: start one of each on a known port.
    for (const role of ['automation', 'import']) {
      const port = await freePort();
      const worker = SiblingProcess.start(t.cluster, `${role}-worker-1`, `${role}-worker-probe`, { GRPC_PORT: String(port) });
      workers.push({ process: worker, port, identity: `${role}-worker` });
      await waitUntil(
        `${role} worker health on ${port}`,
        () => checkHealth(healthOf(t.cluster, `127.0.0.1:${port}`, `${role}-worker`)),
        60_000,
      );
    }
  }, 180_000 + CLUSTER_RETRY_MS);

  afterAll(async () => {
    for (const worker of workers) await worker.process.stop();
    await t?.stop();
    await broker?.stop();
  }, 60_000);

  it('takes the workers out while the broker is down and puts them back after, without restarting anyone', async () => {
    const owner = await signUp(t.api);
    const recordsPort = Number((t.cluster.processes.get('records') as unknown as { env: Record<string, string> }).env.GRPC_PORT);
    const pids = workers.map((worker) => worker.process.pid);

    await broker.kill();
    const killedAt = Date.now();
    for (const worker of workers) {
      await waitUntil(
        `${worker.process.name} NOT_SERVING`,
        async () => !(await checkHealth(healthOf(t.cluster, `127.0.0.1:${worker.port}`, worker.identity))),
        30_000,
      );
    }
    const outAfterMs = Date.now() - killedAt;
    // Liveness is separate: the workers still run and accept connections on their port.
    expect(workers.map((worker) => worker.process.running)).toEqual([true, true]);
    await expect(Promise.all(workers.map((worker) => portAccepts(worker.port)))).resolves.toEqual([true, true]);
    // Records needs only its store: it keeps serving, and writes go on.
    await expect(checkHealth(healthOf(t.cluster, `127.0.0.1:${recordsPort}`, 'records'))).resolves.toBe(true);
    const lead = await t.api.post(
      '/api/leads/',
      { firstName: 'During', lastName: 'Outage', email: `outage-${randomBytes(3).toString('hex')}@example.com` },
      { token: owner.access },
    );
    expect(lead.status).toBe(201);

    await broker.resume();
    const resumedAt = Date.now();
    for (const worker of workers) {
      // The bus reconnects with a backoff that grows to 30 s.
      await waitUntil(
        `${worker.process.name} SERVING again`,
        () => checkHealth(healthOf(t.cluster, `127.0.0.1:${worker.port}`, worker.identity)),
        90_000,
      );
    }
    console.log(
      `readiness: both workers NOT_SERVING ${outAfterMs} ms after the broker died, SERVING ${Date.now() - resumedAt} ms after it was back`,
    );
    expect(workers.map((worker) => worker.process.pid)).toEqual(pids);
    expect(workers.map((worker) => worker.process.running)).toEqual([true, true]);
  });
});
