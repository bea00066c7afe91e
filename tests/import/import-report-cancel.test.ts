/**
 * Bounded import jobs and cancelling an import (issue 13, items 2 and 3), through HTTPS on the
 * local cluster: a 1 MB file of 250,000 bad rows keeps its poll answer and the job list small while
 * the errors download holds every row; a cancel stops the chunks not yet applied.
 */
import { randomBytes } from 'node:crypto';
import { busLocationFromEnv, newMessage, openBus } from '@crm/bus';
import { createLogger } from '@crm/observability';
import { queueDepth } from '../support/broker';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import { peopleCsv, RecordsReader, uploadCsv, waitForJob } from './import-support';

jest.setTimeout(300_000);

let t: TestCluster;
let records: RecordsReader;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, workers: 2 });
  records = new RecordsReader(t.cluster);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  records?.close();
  await t?.stop();
}, 60_000);

const KB = 1024;
const jobPath = (uid: string) => `/api/crm/contacts/import-jobs/${uid}/`;

async function owner(): Promise<SignedUp> {
  const me = await signUp(t.api);
  await liftRateLimit(t.cluster, me.user.workspaceId);
  return me;
}

/** `First Name,Email` then rows with a formula-like first name and no email: 4 bytes each. */
function badRowsCsv(rows: number): { csv: string; firstNames: string[] } {
  const firstNames = ['=1', '+2', '-3', '@4'];
  const lines = ['First Name,Email'];
  for (let i = 0; i < rows; i++) lines.push(`${firstNames[i % 4]},`);
  return { csv: `${lines.join('\n')}\n`, firstNames };
}

describe('a file of 250,000 bad rows', () => {
  it('keeps the poll answer and the job list under 100 KB, and downloads every row as CSV', async () => {
    const me = await owner();
    const rows = 250_000;
    const { csv, firstNames } = badRowsCsv(rows);
    const started = Date.now();
    const uid = await uploadCsv(t.api, me.access, csv);
    const job = await waitForJob(t.api, me.access, uid, 280_000);
    const seconds = (Date.now() - started) / 1000;
    expect(job).toMatchObject({
      status: 'complete',
      totalRows: rows,
      processedRows: rows,
      successCount: 0,
      errorCount: rows,
      duplicateCount: 0,
    });
    expect(job.errors.length).toBeGreaterThan(0);
    expect(job.errors.length).toBeLessThanOrEqual(1000);
    expect(job.errors.slice(0, 3)).toEqual([1, 2, 3].map((row) => ({ row, message: 'Email is missing.' })));

    const poll = await t.api.get(jobPath(uid), { token: me.access });
    const list = await t.api.get('/api/crm/contacts/import-jobs/', { token: me.access });
    expect(list.body[0]).toMatchObject({ uid, errorCount: rows, errors: [], duplicates: [] });
    const pollBytes = Buffer.byteLength(poll.text);
    const listBytes = Buffer.byteLength(list.text);
    expect(pollBytes).toBeLessThan(100 * KB);
    expect(listBytes).toBeLessThan(100 * KB);

    const downloadStarted = Date.now();
    const download = await t.api.get(`${jobPath(uid)}errors/`, { token: me.access });
    const downloadSeconds = (Date.now() - downloadStarted) / 1000;
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toMatch(/^text\/csv/);
    const lines = download.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines[0]).toBe('row,kind,reason,First Name,Email');
    expect(lines).toHaveLength(rows + 1);
    const wrong = lines.slice(1).filter((line, i) => line !== `${i + 1},error,Email is missing.,'${firstNames[i % 4]},`);
    expect(wrong).toEqual([]);

    // The figures the issue asks for.
    console.log(
      [
        `big-file import: ${Buffer.byteLength(csv).toLocaleString('en')} bytes, ${rows.toLocaleString('en')} rows, complete in ${seconds.toFixed(1)} s`,
        `poll answer ${pollBytes.toLocaleString('en')} bytes (${job.errors.length} errors inline), job list ${listBytes.toLocaleString('en')} bytes`,
        `errors CSV ${Buffer.byteLength(download.text).toLocaleString('en')} bytes, ${lines.length.toLocaleString('en')} lines, in ${downloadSeconds.toFixed(1)} s`,
      ].join('\n'),
    );
  });
});

describe('the errors download', () => {
  it('names the existing contact or the earlier row of each duplicate, after the row errors before it', async () => {
    const me = await owner();
    const existing = await waitForJob(t.api, me.access, await uploadCsv(t.api, me.access, 'Email,First Name\nold@example.com,Old\n'));
    expect(existing.status).toBe('complete');
    const oldId = (await records.contacts(me)).find((c) => c.email === 'old@example.com')!.id;
    const uid = await uploadCsv(
      t.api,
      me.access,
      'Email,First Name\nnew@example.com,New\nnope,@x\nNEW@example.com,Again\nold@example.com,Old\n',
    );
    const job = await waitForJob(t.api, me.access, uid);
    expect(job).toMatchObject({ successCount: 1, errorCount: 1, duplicateCount: 2, processedRows: 4 });
    const download = await t.api.get(`${jobPath(uid)}errors/`, { token: me.access });
    expect(download.text.split('\n')).toEqual([
      'row,kind,reason,Email,First Name',
      `2,error,"Email ""nope"" is not a valid email address.",nope,'@x`,
      '3,duplicate,Duplicate: NEW@example.com is also in row 1 of this file.,NEW@example.com,Again',
      `4,duplicate,Duplicate: old@example.com is already the contact ${oldId}.,old@example.com,Old`,
      '',
    ]);
  });

  it("answers 404 for another workspace's job", async () => {
    const me = await owner();
    const other = await owner();
    const uid = await uploadCsv(t.api, me.access, 'Email,First Name\nbad,A\n');
    await waitForJob(t.api, me.access, uid);
    expect((await t.api.get(`${jobPath(uid)}errors/`, { token: other.access })).status).toBe(404);
    expect((await t.api.get(`${jobPath(uid)}errors/`, { token: me.access })).status).toBe(200);
  });
});

describe('cancelling an import', () => {
  it('stops the chunks not yet applied and leaves the job cancelled with exact counts', async () => {
    const me = await owner();
    const rows = 60_000;
    const uid = await uploadCsv(t.api, me.access, peopleCsv(rows, `cancel-${randomBytes(3).toString('hex')}`));
    for (;;) {
      const job = (await t.api.get(jobPath(uid), { token: me.access })).body;
      if (job.processedRows > 0) break;
      expect(job.status).not.toBe('complete');
      await new Promise((r) => setTimeout(r, 100));
    }
    const cancel = await t.api.post(`${jobPath(uid)}cancel/`, {}, { token: me.access });
    expect(cancel.status).toBe(200);
    expect(cancel.body).toMatchObject({ uid, status: 'cancelled', errors: [], duplicates: [] });
    expect(cancel.body.finishedAt).toMatch(/Z$/);
    // Chunks already being imported when the cancel came are counted as they finish; then nothing moves.
    const settled = await stableJob(me, uid);
    expect(settled.status).toBe('cancelled');
    expect(settled.successCount).toBeGreaterThanOrEqual(cancel.body.successCount);
    expect(settled.processedRows).toBeLessThan(rows);
    expect((await records.contacts(me)).length).toBe(settled.successCount);
  });

  it('does nothing with a chunk delivered after the cancel', async () => {
    const me = await owner();
    // Cancelled as soon as it is uploaded; then chunks of it come (again): one counted or in flight
    // before the cancel (index 0) and one never applied (the last, 59).
    const big = await uploadCsv(t.api, me.access, peopleCsv(30_000, `late-${randomBytes(3).toString('hex')}`));
    expect((await t.api.post(`${jobPath(big)}cancel/`, {}, { token: me.access })).status).toBe(200);
    const before = await stableJob(me, big);
    const bus = await openBus(
      busLocationFromEnv(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', t.cluster.busEnv),
      createLogger('test', { level: 'silent' }),
    );
    try {
      const late = Array.from({ length: 5 }, (_, i) => ({
        row: 29_990 + i,
        cells: [`late-after-cancel-${i}@example.com`, 'Late'],
        fields: { email: `late-after-cancel-${i}@example.com`, firstName: 'Late' },
      }));
      for (const index of [0, 59])
        await bus.publish(
          newMessage(
            'import.chunk.v1',
            { jobUid: big, workspaceId: me.user.workspaceId, index, firstRow: 29_990, rows: late },
            { correlationId: big },
          ),
        );
      await waitForEmptyQueue('import.chunks');
    } finally {
      await bus.close();
    }
    const after = (await t.api.get(jobPath(big), { token: me.access })).body;
    expect(after).toMatchObject({ status: 'cancelled', successCount: before.successCount, processedRows: before.processedRows });
    expect((await records.contacts(me)).filter((c) => c.email.startsWith('late-after-cancel-'))).toEqual([]);
  });

  it('answers 409 for a job that has finished, and 404 for another workspace', async () => {
    const me = await owner();
    const other = await owner();
    const uid = await uploadCsv(t.api, me.access, peopleCsv(2, `fin-${randomBytes(3).toString('hex')}`));
    expect((await waitForJob(t.api, me.access, uid)).status).toBe('complete');
    const finished = await t.api.post(`${jobPath(uid)}cancel/`, {}, { token: me.access });
    expect(finished.status).toBe(409);
    expect(finished.body.detail).toMatch(/already complete/);
    const running = await uploadCsv(t.api, me.access, peopleCsv(20_000, `other-${randomBytes(3).toString('hex')}`));
    expect((await t.api.post(`${jobPath(running)}cancel/`, {}, { token: other.access })).status).toBe(404);
    expect((await t.api.get(jobPath(running), { token: me.access })).body.status).not.toBe('cancelled');
    expect((await t.api.post(`${jobPath(running)}cancel/`, {}, { token: me.access })).status).toBe(200);
    expect((await t.api.post(`${jobPath(running)}cancel/`, {}, { token: me.access })).status).toBe(409);
  });
});

/** The job once its counts have not moved for two seconds. */
async function stableJob(me: SignedUp, uid: string): Promise<any> {
  let last = '';
  let since = Date.now();
  for (;;) {
    const job = (await t.api.get(jobPath(uid), { token: me.access })).body;
    const counts = `${job.status} ${job.successCount} ${job.errorCount} ${job.duplicateCount}`;
    if (counts !== last) {
      last = counts;
      since = Date.now();
    } else if (Date.now() - since > 2000) {
      return job;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function waitForEmptyQueue(queue: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await queueDepth(t.cluster, queue)) === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Taken off the queue is not yet handled: give the workers a moment to handle it.
  await new Promise((r) => setTimeout(r, 1500));
}
