/**
 * Cancelling an import and reading its report, in one process: SQLite :memory:, files in memory, a
 * fake records service that creates every row (idempotent on the key) and can hold a batch in
 * flight, and chunks handed to the importer directly, as the bus would deliver them.
 */
import { createLogger } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import { splitCsv } from '../adapters/csv/chunk-splitter';
import { decodeText } from '../adapters/csv/text-encoding';
import { queuedJob } from '../testing/queued-job';
import { importCollections } from '../store/collections';
import { ImportJobRepository } from '../store/import-job-repository';
import { MemoryFiles } from '../testing/memory-files';
import { ChunkImporter } from './chunk-importer';
import { chunkPayload } from './chunk-payload';
import type { ChunkPayload } from './import-messages';
import { reportPage } from './import-report-export';
import { cancelImportJob } from './job-cancellation';
import { JobSweeper } from './job-sweeper';
import type { RecordsClient } from './ports';
import { InProcessBus } from '@crm/bus';

const logger = createLogger('import-test', { level: 'silent' });
const WS = 'ws_test';

class FakeRecords implements RecordsClient {
  readonly created = new Set<string>();
  private readonly answers = new Map<string, unknown>();
  /** While set, batch calls wait for it: a chunk being imported. */
  hold: Promise<void> | undefined;

  async call(method: string, request: any): Promise<any> {
    if (method !== 'BatchCreateContacts') throw new Error(`unexpected ${method}`);
    await this.hold;
    const stored = this.answers.get(request.idempotencyKey);
    if (stored) return stored;
    const answer = { created: [] as any[], duplicates: [], errors: [], replayed: false };
    for (const row of request.rows) {
      this.created.add(row.email);
      answer.created.push({ row: row.row, contactId: `cnt_${this.created.size}` });
    }
    this.answers.set(request.idempotencyKey, answer);
    return answer;
  }
}

let store: DocumentStore;
let files: MemoryFiles;
let records: FakeRecords;
let repo: ImportJobRepository;
let importer: ChunkImporter;
let sequence = 0;

beforeEach(async () => {
  store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: importCollections });
  files = new MemoryFiles();
  records = new FakeRecords();
  repo = new ImportJobRepository(store);
  importer = new ChunkImporter({ repo, files, records, logger });
});

afterEach(async () => {
  await store.close();
});

/** A job whose file is split into chunks of two rows, ready for the importer; returns them. */
async function splitJob(csv: string, workspaceId = WS): Promise<{ uid: string; chunks: ChunkPayload[] }> {
  sequence += 1;
  const uid = `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`;
  files.files.set(uid, Buffer.from(csv));
  const job = queuedJob(uid, workspaceId, csv.length);
  await repo.createJob(job, 60_000);
  await repo.markStarted(workspaceId, uid);
  const chunks: ChunkPayload[] = [];
  const summary = await splitCsv(files.open(uid).pipe(decodeText('utf-8')), {
    chunkRows: 2,
    mappings: {},
    onHeader: (plan, cells) => repo.recordHeader(workspaceId, uid, plan.ignoredColumns, cells),
    onChunk: async (c) => {
      await repo.planChunk(workspaceId, uid, c.index, c.firstRow, c.rows.length);
      chunks.push(chunkPayload(uid, workspaceId, c));
    },
  });
  await repo.recordSplitDone(workspaceId, uid, summary.totalRows, summary.chunkCount, summary.ignoredColumns);
  return { uid, chunks };
}

const SIX = 'Email,First Name\na@x.io,A\nb@x.io,B\nc@x.io,C\nd@x.io,D\ne@x.io,E\nf@x.io,F\n';
const cancel = (uid: string, workspaceId = WS) => cancelImportJob({ repo, files, logger }, workspaceId, uid);

describe('cancelling an import', () => {
  it('stops the chunks not yet applied and keeps the counts so far', async () => {
    const { uid, chunks } = await splitJob(SIX);
    await importer.handle(chunks[0]!);
    const cancelled = await cancel(uid);
    expect(cancelled).toMatchObject({ status: 'cancelled', successCount: 2 });
    expect(cancelled.finishedAt).not.toBeNull();
    await importer.handle(chunks[1]!);
    await importer.handle(chunks[2]!);
    expect(await repo.get(WS, uid)).toMatchObject({ status: 'cancelled', successCount: 2, chunksDone: 1 });
    expect(records.created.size).toBe(2);
    expect(files.files.has(uid)).toBe(false);
  });

  it('does nothing with a chunk redelivered after the cancel', async () => {
    const { uid, chunks } = await splitJob(SIX);
    await importer.handle(chunks[0]!);
    await cancel(uid);
    await importer.handle(chunks[0]!);
    expect(await repo.get(WS, uid)).toMatchObject({ successCount: 2, chunksDone: 1 });
  });

  it('counts a chunk that was being imported when the cancel came, so the counts match the contacts', async () => {
    const { uid, chunks } = await splitJob(SIX);
    let release!: () => void;
    records.hold = new Promise((resolve) => (release = resolve));
    const inFlight = importer.handle(chunks[0]!);
    await new Promise((r) => setTimeout(r, 20));
    expect(await cancel(uid)).toMatchObject({ status: 'cancelled', successCount: 0 });
    release();
    await inFlight;
    // Its redelivery (the worker died before the ack) counts nothing twice.
    await importer.handle(chunks[0]!);
    expect(await repo.get(WS, uid)).toMatchObject({ status: 'cancelled', successCount: 2, chunksDone: 1 });
    expect(records.created.size).toBe(2);
  });

  it('refuses a job that has ended, and does not see another workspace', async () => {
    const { uid, chunks } = await splitJob('Email,First Name\na@x.io,A\n');
    await importer.handle(chunks[0]!);
    expect((await repo.get(WS, uid))!.status).toBe('complete');
    await expect(cancel(uid)).rejects.toMatchObject({ kind: 'conflict' });
    const other = await splitJob(SIX);
    await expect(cancel(other.uid, 'ws_other')).rejects.toMatchObject({ kind: 'not_found' });
    await cancel(other.uid);
    await expect(cancel(other.uid)).rejects.toMatchObject({ kind: 'conflict', message: expect.stringMatching(/already cancelled/) });
  });

  it('is watched by the sweeper until no chunk is being imported, then forgotten', async () => {
    const bus = new InProcessBus(logger, { stopGraceMs: 10 });
    // The sweeper's clock is past the marker's first look.
    const later = () => Date.now() + 120_000;
    const laterRepo = new ImportJobRepository(store, later);
    const sweeper = new JobSweeper({ repo: laterRepo, bus, importer, logger, stallMs: 0, intervalMs: 1000, now: later });
    const { uid, chunks } = await splitJob(SIX);
    let release!: () => void;
    records.hold = new Promise((resolve) => (release = resolve));
    const inFlight = importer.handle(chunks[0]!);
    await new Promise((r) => setTimeout(r, 20));
    await cancel(uid);
    await sweeper.sweep();
    expect(await laterRepo.dueMarkers()).toHaveLength(1);
    expect(await repo.chunks(WS, uid)).toHaveLength(1);
    release();
    await inFlight;
    await sweeper.sweep();
    expect(await laterRepo.dueMarkers()).toHaveLength(0);
    expect(await repo.chunks(WS, uid)).toEqual([]);
    await bus.close();
  });
});

describe('the report of an import', () => {
  it('lists every error and duplicate in row order with the original cells, formulas neutralised', async () => {
    const csv = 'Email,First Name,Notes\nok@x.io,Ann,fine\nbad,=HYPERLINK("x"),"a, b"\nOK@x.io,Again,-1\n,+SUM(1),@x\n';
    const { uid, chunks } = await splitJob(csv);
    for (const chunk of [...chunks].reverse()) await importer.handle(chunk);
    const job = (await repo.get(WS, uid))!;
    expect(job).toMatchObject({ status: 'complete', successCount: 1, errorCount: 2, duplicateCount: 1 });
    expect(job.errors!.map((e) => e.row)).toEqual([2, 4]);
    expect(job.duplicates).toEqual([{ row: 3, email: 'OK@x.io', existingContactId: null }]);
    const page = await reportPage(repo, WS, uid, -1);
    expect(page).toMatchObject({ done: true, lastRow: 4 });
    expect(page.csv.split('\n')).toEqual([
      'row,kind,reason,Email,First Name,Notes',
      `2,error,"Email ""bad"" is not a valid email address.",bad,"'=HYPERLINK(""x"")","a, b"`,
      "3,duplicate,Duplicate: OK@x.io is also in row 1 of this file.,OK@x.io,Again,'-1",
      "4,error,Email is missing.,,'+SUM(1),'@x",
      '',
    ]);
  });

  it('comes in pages that together hold every row once', async () => {
    const lines = ['Email,First Name'];
    for (let i = 1; i <= 450; i++) lines.push(`bad-${i},N${i}`);
    const { uid, chunks } = await splitJob(`${lines.join('\n')}\n`);
    for (const chunk of chunks) await importer.handle(chunk);
    const rows: string[] = [];
    let afterRow = -1;
    let pages = 0;
    for (;;) {
      const page = await reportPage(repo, WS, uid, afterRow);
      pages += 1;
      rows.push(...page.csv.split('\n').filter((l) => l !== ''));
      if (page.done) break;
      afterRow = page.lastRow;
    }
    expect(pages).toBeGreaterThan(1);
    expect(rows[0]).toBe('row,kind,reason,Email,First Name');
    expect(rows.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
  });

  it('is not found for another workspace', async () => {
    const { uid } = await splitJob(SIX);
    await expect(reportPage(repo, 'ws_other', uid, -1)).rejects.toMatchObject({ kind: 'not_found' });
  });
});
