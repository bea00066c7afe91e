/**
 * Records stopped for 60 s in the middle of a 20,000-row import, once killed and restarted and once
 * frozen (SIGSTOP, then SIGCONT): the failing chunks back off through the bus's delay tiers and
 * are retried once records is back, so the job completes with every row created exactly once.
 * Prints the figures: rows, seconds from upload to complete, chunk retries seen in the worker logs.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { liftRateLimit } from '../support/operator-cli';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';
import { expectEveryRowOnce, peopleCsv, RecordsReader, uploadCsv } from './import-support';

jest.setTimeout(600_000);

const ROWS = 20_000;
const OUTAGE_MS = 60_000;

let t: TestCluster;
let records: RecordsReader;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 2 });
  records = new RecordsReader(t.cluster);
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  records?.close();
  await t?.stop();
}, 60_000);

type Managed = { child: { pid: number }; logFile: string };
const proc = (name: string) =>
  t.cluster.processes.get(name)! as unknown as Managed & NonNullable<ReturnType<typeof t.cluster.processes.get>>;

/** Chunk attempts that failed and were handed back to the bus for later, in every import worker's log. */
function retriesLogged(): number {
  let count = 0;
  for (const name of ['import-worker-1', 'import-worker-2']) {
    const log = readFileSync(proc(name).logFile, 'utf8');
    count += log.split('\n').filter((line) => line.includes('"chunk failed; it will be retried"')).length;
  }
  return count;
}

async function importThrough(outage: (records: Managed) => Promise<void>, label: string): Promise<void> {
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
  const retriesBefore = retriesLogged();
  const started = Date.now();
  const uid = await uploadCsv(t.api, owner.access, peopleCsv(ROWS, `outage-${label}-${randomBytes(3).toString('hex')}`));
  for (;;) {
    const job = (await t.api.get(`/api/crm/contacts/import-jobs/${uid}/`, { token: owner.access })).body;
    if (job.processedRows > 0) break;
    if (job.status === 'complete') throw new Error('the import finished before the outage could start');
    await new Promise((r) => setTimeout(r, 100));
  }
  await outage(proc('records'));
  const job = await expectEveryRowOnce(t.api, records, owner, uid, ROWS);
  expect(job).toMatchObject({ successCount: ROWS, errorCount: 0 });
  const retries = retriesLogged() - retriesBefore;
  console.log(
    `records ${label} for ${OUTAGE_MS / 1000} s: ${ROWS} rows imported in ${((Date.now() - started) / 1000).toFixed(1)} s, ${retries} chunk retries`,
  );
  expect(retries).toBeGreaterThan(0);
}

it('creates every row exactly once when records is killed for 60 s mid-import and restarted', async () => {
  await importThrough(async () => {
    const records = t.cluster.processes.get('records')!;
    await records.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await t.cluster.restart('records');
  }, 'killed');
});

it('creates every row exactly once when records is frozen for 60 s mid-import (SIGSTOP, SIGCONT)', async () => {
  await importThrough(async (frozen) => {
    process.kill(frozen.child.pid, 'SIGSTOP');
    try {
      await new Promise((r) => setTimeout(r, OUTAGE_MS));
    } finally {
      process.kill(frozen.child.pid, 'SIGCONT');
    }
  }, 'frozen');
});
