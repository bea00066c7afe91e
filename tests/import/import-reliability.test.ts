/**
 * The import survives what production throws at it: a worker killed mid-import, chunks delivered
 * twice, the import service restarted between upload and split with the split message lost. Each
 * time: contacts created + rows reported = rows in the file, and no contact twice.
 */
import { randomBytes } from 'node:crypto';
import { busLocationFromEnv, newMessage, openBus } from '@crm/bus';
import { createLogger } from '@crm/observability';
import { purgeQueue } from '../support/broker';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { expectEveryRowOnce, peopleCsv, RecordsReader, uploadCsv } from './import-support';

jest.setTimeout(240_000);

let t: TestCluster;
let records: RecordsReader;

beforeAll(async () => {
  // A short stall time so the sweeper's recovery shows within the test.
  t = await startTestCluster({ gateways: 1, workers: 2, env: { IMPORT_STALL_MS: '3000', IMPORT_SWEEP_MS: '500', CHUNK_ROWS: '200' } });
  records = new RecordsReader(t.cluster);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  records?.close();
  await t?.stop();
}, 60_000);

const worker = (n: number) => t.cluster.processes.get(`import-worker-${n}`)!;

it('completes when a worker is killed in the middle of an import', async () => {
  const owner = await signUp(t.api);
  const rows = 8000;
  const uid = await uploadCsv(t.api, owner.access, peopleCsv(rows, `kill-${randomBytes(3).toString('hex')}`));
  for (;;) {
    const job = (await t.api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token: owner.access })).body;
    if (job.processedRows > 0 || job.status === 'complete') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await worker(1).stop('SIGKILL');
  worker(1).start();
  await expectEveryRowOnce(t.api, records, owner, uid, rows);
  const job = (await t.api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token: owner.access })).body;
  expect(job.successCount).toBe(rows);
});

it('counts every chunk once when chunks are delivered twice', async () => {
  const owner = await signUp(t.api);
  const rows = 3000;
  const bus = await openBus(
    busLocationFromEnv(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', t.cluster.busEnv),
    createLogger('test', { level: 'silent' }),
  );
  try {
    const uid = await uploadCsv(t.api, owner.access, peopleCsv(rows, `twice-${randomBytes(3).toString('hex')}`));
    // A second split of the same job publishes every chunk not yet counted a second time.
    await bus.publish(newMessage('import.job_split.v1', { jobUid: uid, workspaceId: owner.user.workspaceId }, { correlationId: uid }));
    await bus.publish(newMessage('import.job_split.v1', { jobUid: uid, workspaceId: owner.user.workspaceId }, { correlationId: uid }));
    await expectEveryRowOnce(t.api, records, owner, uid, rows);
    expect((await t.api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token: owner.access })).body.successCount).toBe(rows);
  } finally {
    await bus.close();
  }
});

it('completes when the import service restarts between upload and split and the split message is lost', async () => {
  const owner = await signUp(t.api);
  const rows = 1000;
  await Promise.all([worker(1).stop(), worker(2).stop()]);
  try {
    const uid = await uploadCsv(t.api, owner.access, peopleCsv(rows, `restart-${randomBytes(3).toString('hex')}`));
    await t.cluster.restart('import', 'SIGKILL');
    // The split message waited in the queue; lose it, so only the store knows the job exists.
    await new Promise((r) => setTimeout(r, 300));
    await purgeQueue(t.cluster, 'import.splits');
    const queued = (await t.api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token: owner.access })).body;
    expect(queued).toMatchObject({ status: 'queued', processedRows: 0, startedAt: null });
    worker(1).start();
    worker(2).start();
    await expectEveryRowOnce(t.api, records, owner, uid, rows);
  } finally {
    if (!worker(1).running) worker(1).start();
    if (!worker(2).running) worker(2).start();
  }
});
