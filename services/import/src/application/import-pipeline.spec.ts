/**
 * The pipeline in one process: SQLite :memory:, the in-process bus, files in memory and a fake
 * records service that behaves like the real one (idempotent on the key, duplicates by email).
 */
import { InProcessBus, newMessage, type MessageBus } from '@crm/bus';
import { createLogger, DomainError } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import { decodeText } from '../adapters/csv/text-encoding';
import { splitCsv } from '../adapters/csv/chunk-splitter';
import type { ImportJobDocument } from '../domain/import-job';
import { queuedJob } from '../testing/queued-job';
import { activeJobs, importChunks, importCollections, importJobs } from '../store/collections';
import { ImportJobRepository } from '../store/import-job-repository';
import { MemoryFiles } from '../testing/memory-files';
import { ChunkImporter } from './chunk-importer';
import { CHUNK_LEASE_MS, RECORDS_BATCH_ROWS } from './contact-batch';
import { chunkPayload } from './chunk-payload';
import {
  CHUNK_MESSAGE,
  chunkQueue,
  MAX_CHUNK_PUBLISHES,
  SPLIT_MESSAGE,
  splitQueue,
  type ChunkPayload,
  type ReceivedChunkPayload,
} from './import-messages';
import { JobSplitter } from './job-splitter';
import { ImportEvents, JOB_COMPLETED_MESSAGE, JOB_FAILED_MESSAGE } from './import-events';
import { JobSweeper } from './job-sweeper';
import type { RecordsClient } from './ports';

const logger = createLogger('import-test', { level: 'silent' });
const WS = 'ws_test';

class FakeRecords implements RecordsClient {
  readonly contacts = new Map<string, { id: string; importJobId: string }>();
  readonly answers = new Map<string, unknown>();
  calls = 0;
  failNext = 0;
  /** Every BatchCreateContacts call from this one on fails (1-based; a replay is a call too). */
  failFromCall = Infinity;
  /** These BatchCreateContacts calls fail (1-based). */
  failOnCalls = new Set<number>();
  readonly keys: string[] = [];
  /** Batches that are created but whose answer never arrives (a timeout after the commit). */
  loseNext = 0;
  /** The workspace's contact custom fields (ListCustomFields), and the rows of every batch sent. */
  customFields: { key: string; label: string; type: string }[] = [];
  customFieldReads = 0;
  readonly sentRows: any[] = [];
  async call(method: string, request: any): Promise<any> {
    if (method === 'ListCustomFields') {
      this.customFieldReads += 1;
      expect(request).toMatchObject({ kind: 'contact', offset: 0, limit: 100 });
      return { total: this.customFields.length, fields: this.customFields };
    }
    if (method === 'GetContactBatch') {
      const stored = this.answers.get(request.idempotencyKey);
      if (!stored) throw DomainError.notFound();
      return stored;
    }
    if (method !== 'BatchCreateContacts') throw new Error(method);
    this.calls += 1;
    this.keys.push(request.idempotencyKey);
    if (this.calls >= this.failFromCall || this.failOnCalls.has(this.calls)) throw new DomainError('unavailable', 'records unavailable');
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new DomainError('unavailable', 'records unavailable');
    }
    const stored = this.answers.get(request.idempotencyKey);
    if (stored) return { ...(stored as object), replayed: true };
    if (this.loseNext > 0) {
      this.loseNext -= 1;
      this.failNext = Infinity;
      await this.create(request);
      throw new DomainError('unavailable', 'deadline exceeded');
    }
    return this.create(request);
  }

  private async create(request: any): Promise<any> {
    const answer = { created: [] as any[], duplicates: [] as any[], errors: [] as any[], replayed: false };
    for (const row of request.rows) {
      this.sentRows.push(row);
      // Records reads each custom cell by its field's type: here, an integer field refuses text.
      const cells = row.customFields ? (JSON.parse(row.customFields) as Record<string, string>) : {};
      const bad = this.customFields.find(
        (field) => field.type === 'integer' && cells[field.key] !== undefined && !/^-?\d+$/.test(cells[field.key]!),
      );
      if (bad) {
        answer.errors.push({ row: row.row, message: `customFields.${bad.key}: Enter a whole number.` });
        continue;
      }
      const key = row.email.toLowerCase();
      const existing = this.contacts.get(key);
      if (existing)
        answer.duplicates.push({
          row: row.row,
          email: row.email,
          existingContactId: existing.id,
          sameImport: existing.importJobId === request.importJobId,
        });
      else {
        const id = `cnt_${this.contacts.size + 1}`;
        this.contacts.set(key, { id, importJobId: request.importJobId });
        answer.created.push({ row: row.row, contactId: id });
      }
    }
    this.answers.set(request.idempotencyKey, answer);
    return answer;
  }
}

let store: DocumentStore;
let bus: InProcessBus;
let files: MemoryFiles;
let records: FakeRecords;
let repo: ImportJobRepository;
let importer: ChunkImporter;
let splitter: JobSplitter;
let sequence = 0;

beforeEach(async () => {
  store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: importCollections });
  // Retries every few milliseconds for a third of a second, then the last attempt.
  bus = new InProcessBus(logger, { stopGraceMs: 100, retryBackoffMs: [5, 10, 20] });
  files = new MemoryFiles();
  records = new FakeRecords();
  repo = new ImportJobRepository(store);
  importer = new ChunkImporter({ repo, files, records, logger });
  splitter = new JobSplitter({ repo, files, bus, importer, records, logger, chunkRows: 2 });
});

afterEach(async () => {
  await bus.close();
  await store.close();
});

async function newJob(csv: string, fieldMappings: ImportJobDocument['fieldMappings'] = {}): Promise<string> {
  sequence += 1;
  const id = `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`;
  files.files.set(id, Buffer.from(csv));
  const job = { ...queuedJob(id, WS, csv.length), fieldMappings };
  await repo.createJob(job, 60_000);
  return id;
}

async function consumeAll(): Promise<void> {
  await bus.consume(chunkQueue(4, 300), (m, info) => importer.handle(m.payload as ReceivedChunkPayload, info));
  await bus.consume(splitQueue, (m) => splitter.split((m.payload as any).workspaceId, (m.payload as any).jobUid));
}

async function settled(jobUid: string): Promise<ImportJobDocument> {
  for (let i = 0; i < 500; i++) {
    const job = await repo.get(WS, jobUid);
    if (job && (job.status === 'complete' || job.status === 'failed')) return job;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('job did not settle');
}

async function eventuallyTrue(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
}

const CSV = 'Email,First Name,Company\na@x.io,A,Acme\nb@x.io,B,Acme\nbad,C,Acme\nA@x.io,Again,Acme\nc@x.io,,Acme\n';

describe('import pipeline', () => {
  it('moves queued → processing → complete with exact counters', async () => {
    await consumeAll();
    const uid = await newJob(CSV);
    expect((await repo.get(WS, uid))!.status).toBe('queued');
    await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
    const job = await settled(uid);
    expect(job).toMatchObject({
      status: 'complete',
      totalRows: 5,
      successCount: 2,
      errorCount: 2,
      duplicateCount: 1,
      ignoredColumns: ['Company'],
    });
    expect(job.startedAt).not.toBeNull();
    expect(job.finishedAt).not.toBeNull();
    expect(job.duplicates).toEqual([{ row: 4, email: 'A@x.io', existingContactId: null }]);
    expect(job.errors!.map((e) => e.row).sort()).toEqual([3, 5]);
    expect(files.files.has(uid)).toBe(false);
  });

  it('fills custom fields from headers naming their key or label and from field_mappings, reading them once per job', async () => {
    records.customFields = [
      { key: 'shoeSize', label: 'Shoe size', type: 'integer' },
      { key: 'favouriteColour', label: 'Favourite colour', type: 'text' },
      { key: 'region', label: 'Sales region', type: 'select' },
      { key: 'note2', label: 'Email', type: 'text' },
    ];
    await consumeAll();
    const csv = [
      'EMAIL,First Name,shoesize, FAVOURITE COLOUR ,Territory,Company',
      'a@x.io,A,42,blue,North,Acme',
      'b@x.io,B,abc,,South,Acme',
      'c@x.io,C,,,,Acme',
    ].join('\n');
    const uid = await newJob(csv, { Territory: 'customFields.region' });
    await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
    const job = await settled(uid);
    expect(job).toMatchObject({ status: 'complete', totalRows: 3, successCount: 2, errorCount: 1, ignoredColumns: ['Company'] });
    expect(job.errors).toEqual([{ row: 2, message: 'customFields.shoeSize: Enter a whole number.' }]);
    expect(records.customFieldReads).toBe(1);
    expect(records.sentRows.map((row) => [row.row, row.email, row.customFields])).toEqual([
      [1, 'a@x.io', JSON.stringify({ shoeSize: '42', favouriteColour: 'blue', region: 'North' })],
      [2, 'b@x.io', JSON.stringify({ shoeSize: 'abc', region: 'South' })],
      [3, 'c@x.io', ''],
    ]);
  });

  it('fails a job whose field_mappings names a custom field the workspace no longer has', async () => {
    await consumeAll();
    const uid = await newJob('Email,First Name,Size\na@x.io,A,42\n', { Size: 'customFields.shoeSize' });
    await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
    const job = await settled(uid);
    expect(job.status).toBe('failed');
    expect(job.errorMessage).toMatch(/"Size" to "customFields\.shoeSize".*no such contact custom field/);
    expect(records.sentRows).toEqual([]);
  });

  it('counts a chunk once however often it is delivered', async () => {
    const uid = await newJob(CSV);
    await repo.markStarted(WS, uid);
    const chunks: ChunkPayload[] = [];
    await splitCsv(files.open(uid).pipe(decodeText('utf-8')), {
      chunkRows: 2,
      mappings: {},
      onChunk: async (c) => {
        await repo.planChunk(WS, uid, c.index, c.firstRow, c.rows.length);
        chunks.push(chunkPayload(uid, WS, c));
      },
    });
    await repo.recordSplitDone(WS, uid, 5, chunks.length, []);
    await importer.handle(chunks[0]!);
    await importer.handle(chunks[0]!);
    const afterTwice = await repo.get(WS, uid);
    expect(afterTwice).toMatchObject({ successCount: 2, chunksDone: 1, status: 'processing' });
    for (const chunk of [...chunks, ...chunks]) await importer.handle(chunk);
    expect(await repo.get(WS, uid)).toMatchObject({ status: 'complete', successCount: 2, errorCount: 2, duplicateCount: 1, chunksDone: 3 });
    expect(records.contacts.size).toBe(2);
  });

  it('counts a chunk queued by an earlier version, whose rows carry their fields, as it did then', async () => {
    await consumeAll();
    const uid = await newJob(CSV);
    await repo.markStarted(WS, uid);
    await splitCsv(files.open(uid).pipe(decodeText('utf-8')), {
      chunkRows: 2,
      mappings: {},
      onChunk: async (c) => {
        await repo.planChunk(WS, uid, c.index, c.firstRow, c.rows.length);
        const queued = { jobUid: uid, workspaceId: WS, index: c.index, firstRow: c.firstRow, rows: c.rows };
        await bus.publish(newMessage(CHUNK_MESSAGE, JSON.parse(JSON.stringify(queued)), { correlationId: uid }));
      },
    });
    await repo.recordSplitDone(WS, uid, 5, 3, ['Company']);
    await importer.finishIfDone(WS, uid);
    const job = await settled(uid);
    expect(job).toMatchObject({ status: 'complete', successCount: 2, errorCount: 2, duplicateCount: 1 });
    expect(job.duplicates).toEqual([{ row: 4, email: 'A@x.io', existingContactId: null }]);
    expect(job.errors!.map((e) => e.row).sort()).toEqual([3, 5]);
  });

  it('publishes each row as its cells, without the fields made from them', async () => {
    const published: ChunkPayload[] = [];
    await bus.consume({ name: 'spy', bindings: [CHUNK_MESSAGE] }, async (m) => void published.push(m.payload as ChunkPayload));
    await splitter.split(WS, await newJob(CSV));
    await eventuallyTrue(() => published.length === 3);
    expect(published.map((p) => p.cells)).toEqual([
      [
        ['a@x.io', 'A', 'Acme'],
        ['b@x.io', 'B', 'Acme'],
      ],
      [
        ['bad', 'C', 'Acme'],
        ['A@x.io', 'Again', 'Acme'],
      ],
      [['c@x.io', '', 'Acme']],
    ]);
    expect(JSON.stringify(published)).not.toContain('"fields"');
  });

  it('reports a chunk that fails on every delivery as row errors instead of hanging', async () => {
    await consumeAll();
    records.failNext = 1000;
    const uid = await newJob('Email,First Name\na@x.io,A\n');
    await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
    const job = await settled(uid);
    expect(job).toMatchObject({ status: 'complete', successCount: 0, errorCount: 1 });
    expect(job.errors![0]!.message).toMatch(/^Not imported: /);
  });

  it('reports rows an earlier attempt created as created when every later attempt fails', async () => {
    await consumeAll();
    records.loseNext = 1;
    const uid = await newJob('Email,First Name\na@x.io,A\nb@x.io,B\n');
    await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
    const job = await settled(uid);
    expect(records.calls).toBeGreaterThan(2);
    expect(job).toMatchObject({ status: 'complete', successCount: 2, errorCount: 0 });
  });

  describe(`a chunk of more than ${RECORDS_BATCH_ROWS} rows (records takes it in batches, issue 36 item 8)`, () => {
    const ROWS = 2 * RECORDS_BATCH_ROWS + 100;
    const csv = ['Email,First Name', ...Array.from({ length: ROWS }, (_, i) => `p${i}@x.io,P${i}`)].join('\n');
    beforeEach(() => {
      splitter = new JobSplitter({ repo, files, bus, importer, records, logger, chunkRows: ROWS });
    });

    it('sends its rows as batches in order, each under its own key, and a redelivery replays the ones created', async () => {
      await consumeAll();
      // The second batch fails once; the redelivery replays the first and creates the others.
      records.failOnCalls = new Set([2]);
      const uid = await newJob(csv);
      await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
      const job = await settled(uid);
      expect(records.keys).toEqual([`${uid}:0:0`, `${uid}:0:1`, `${uid}:0:0`, `${uid}:0:1`, `${uid}:0:2`]);
      expect(job).toMatchObject({ status: 'complete', totalRows: ROWS, successCount: ROWS, errorCount: 0, duplicateCount: 0 });
      expect(records.contacts.size).toBe(ROWS);
      expect(records.sentRows.map((row) => row.row)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    });

    it('on its last attempt counts the batches created and writes off only the rows of the batches never created', async () => {
      await consumeAll();
      records.failFromCall = 2;
      const uid = await newJob(csv);
      await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
      const job = await settled(uid);
      expect(job).toMatchObject({
        status: 'complete',
        totalRows: ROWS,
        successCount: RECORDS_BATCH_ROWS,
        errorCount: ROWS - RECORDS_BATCH_ROWS,
      });
      expect(records.contacts.size).toBe(RECORDS_BATCH_ROWS);
      expect(job.errors![0]!.message).toMatch(/^Not imported: the contacts service could not be reached/);
    });
  });

  it('fails a job whose file has no email column, with the reason', async () => {
    await consumeAll();
    const uid = await newJob('Name,Company\nA,B\n');
    await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
    const job = await settled(uid);
    expect(job.status).toBe('failed');
    expect(job.errorMessage).toMatch(/no email column/);
  });

  it('completes a header-only file with zero rows', async () => {
    await consumeAll();
    const uid = await newJob('Email,First Name\n');
    await bus.publish(newMessage(SPLIT_MESSAGE, { jobUid: uid, workspaceId: WS }, { correlationId: uid }));
    expect(await settled(uid)).toMatchObject({ status: 'complete', totalRows: 0, successCount: 0 });
  });

  it('recovers a job whose split message was lost: the sweeper re-publishes it once stalled', async () => {
    await consumeAll();
    let clock = Date.now();
    const clocked = new ImportJobRepository(store, () => clock);
    const sweeper = new JobSweeper({ repo: clocked, bus, importer, logger, stallMs: 1000, intervalMs: 1000, now: () => clock });
    const uid = await newJob(CSV);
    expect(await sweeper.sweep()).toEqual([]);
    clock += 61_000;
    expect(await sweeper.sweep()).toEqual([uid]);
    expect(await settled(uid)).toMatchObject({ status: 'complete', successCount: 2 });
  });

  it('tidies the chunks of a job that ended just before a crash, with its marker', async () => {
    await bus.consume({ name: 'spy', bindings: [CHUNK_MESSAGE] }, async () => undefined);
    let clock = Date.now();
    const clocked = new ImportJobRepository(store, () => clock);
    const sweeper = new JobSweeper({ repo: clocked, bus, importer, logger, stallMs: 1000, intervalMs: 1000, now: () => clock });
    const uid = await newJob(CSV);
    await splitter.split(WS, uid);
    const chunksOf = () => store.forWorkspace(WS).count(importChunks, [{ field: 'jobUid', op: 'eq', value: uid }]);
    expect(await chunksOf()).toBeGreaterThan(0);
    // The job's own write landed; the tidying after it did not.
    await store.forWorkspace(WS).update(importJobs, uid, { set: { status: 'failed', errorMessage: 'crashed after this' } });
    clock += 61_000;
    expect(await sweeper.sweep()).toEqual([]);
    expect(await chunksOf()).toBe(0);
    expect(await store.global().get(activeJobs, uid)).toBeNull();
  });

  it('announces a job that ended just before a crash, once the sweeper finds it (at least once), then forgets it', async () => {
    const announced: Array<{ type: string; id: string }> = [];
    await bus.consume({ name: 'announcements', bindings: [JOB_COMPLETED_MESSAGE, JOB_FAILED_MESSAGE] }, async (m) => {
      announced.push({ type: m.type, id: m.id });
    });
    let clock = Date.now();
    const clocked = new ImportJobRepository(store, () => clock);
    const announcing = new ChunkImporter({ repo: clocked, files, records, logger, events: new ImportEvents(bus) });
    const sweeper = new JobSweeper({ repo: clocked, bus, importer: announcing, logger, stallMs: 1000, intervalMs: 1000, now: () => clock });
    const uid = await newJob(CSV);
    // The end was written, and the worker stopped before announcing it.
    expect(await clocked.fail(WS, uid, 'crashed after this')).not.toBeNull();
    expect(await store.global().get(activeJobs, uid)).not.toBeNull();
    clock += 61_000;
    await sweeper.sweep();
    await eventuallyTrue(() => announced.length === 1);
    expect(announced).toEqual([{ type: JOB_FAILED_MESSAGE, id: `${uid}:failed` }]);
    expect(await store.global().get(activeJobs, uid)).toBeNull();
    clock += 61_000;
    await sweeper.sweep();
    expect(announced).toHaveLength(1);
  });

  describe('giving up on a chunk published too often', () => {
    let clock: number;
    let clocked: ImportJobRepository;
    let clockedImporter: ChunkImporter;
    let published: ChunkPayload[];
    const splitterOn = (on: MessageBus) =>
      new JobSplitter({ repo: clocked, files, bus: on, importer: clockedImporter, records, logger, chunkRows: 2 });

    beforeEach(async () => {
      clock = Date.now();
      clocked = new ImportJobRepository(store, () => clock);
      clockedImporter = new ChunkImporter({ repo: clocked, files, records, logger });
      published = [];
      await bus.consume({ name: 'spy', bindings: [CHUNK_MESSAGE] }, async (m) => void published.push(m.payload as ChunkPayload));
    });

    const chunk = async (uid: string, index: number) => (await store.forWorkspace(WS).get(importChunks, `${uid}:${index}`))!;

    it('counts only the publishes the bus took: splits while the broker is down give up on nothing', async () => {
      const down = { publish: async () => Promise.reject(new Error('connection closed')) } as unknown as MessageBus;
      const uid = await newJob(CSV);
      for (let i = 0; i < MAX_CHUNK_PUBLISHES + 2; i++) await expect(splitterOn(down).split(WS, uid)).rejects.toThrow('connection closed');
      // The broker's failure is not the file's: the job goes on.
      expect((await repo.get(WS, uid))!.status).toBe('processing');
      clock += CHUNK_LEASE_MS + 1;
      await splitterOn(bus).split(WS, uid);
      await eventuallyTrue(() => published.length === 3);
      expect((await chunk(uid, 0)).publishCount).toBe(1);
      for (const payload of published) await clockedImporter.handle(payload);
      expect(await repo.get(WS, uid)).toMatchObject({ status: 'complete', successCount: 2, errorCount: 2, duplicateCount: 1 });
    });

    it('leaves a chunk a worker holds or the bus took within the lease, and counts what the worker creates', async () => {
      const uid = await newJob(CSV);
      for (let i = 0; i < MAX_CHUNK_PUBLISHES; i++) await splitterOn(bus).split(WS, uid);
      await eventuallyTrue(() => published.length === 3 * MAX_CHUNK_PUBLISHES);
      expect(await clocked.claimChunk(WS, uid, 0)).toBe('import');
      clock += CHUNK_LEASE_MS / 2;
      // Past the publish limit: nothing is published again, and nothing is given up on yet.
      await splitterOn(bus).split(WS, uid);
      expect((await clocked.chunks(WS, uid)).map((c) => c.status)).toEqual(['claimed', 'pending', 'pending']);
      // The worker that claimed chunk 0 goes on with it: its contacts are counted as created.
      await clockedImporter.handle(published[0]!);
      expect(await repo.get(WS, uid)).toMatchObject({ successCount: 2, errorCount: 0, chunksDone: 1 });
      expect(records.contacts.size).toBe(2);
    });

    it('gives up on a chunk idle past the lease, even one claimed by a worker that died; later deliveries leave it', async () => {
      const uid = await newJob(CSV);
      for (let i = 0; i < MAX_CHUNK_PUBLISHES; i++) await splitterOn(bus).split(WS, uid);
      await eventuallyTrue(() => published.length === 3 * MAX_CHUNK_PUBLISHES);
      expect(await clocked.claimChunk(WS, uid, 0)).toBe('import');
      clock += CHUNK_LEASE_MS + 1;
      await splitterOn(bus).split(WS, uid);
      expect(await repo.get(WS, uid)).toMatchObject({ status: 'complete', successCount: 0, errorCount: 5, duplicateCount: 0 });
      for (const payload of published) await clockedImporter.handle(payload);
      expect(records.contacts.size).toBe(0);
      expect(await repo.get(WS, uid)).toMatchObject({ successCount: 0, errorCount: 5 });
    });

    it('a chunk taken to be given up on is left by a worker that claims it meanwhile', async () => {
      const uid = await newJob(CSV);
      await splitterOn(bus).split(WS, uid);
      await eventuallyTrue(() => published.length === 3);
      clock += CHUNK_LEASE_MS + 1;
      expect(await clocked.takeToGiveUp(WS, uid, 0, CHUNK_LEASE_MS)).toBe(true);
      expect(await clocked.takeToGiveUp(WS, uid, 0, CHUNK_LEASE_MS)).toBe(false);
      expect(await clocked.claimChunk(WS, uid, 0)).toBe('leave');
      await clockedImporter.handle(published[0]!);
      expect(records.contacts.size).toBe(0);
    });
  });

  it('re-publishes only the chunks that were lost', async () => {
    const published: ChunkPayload[] = [];
    await bus.consume({ name: 'spy', bindings: [CHUNK_MESSAGE] }, async (m) => void published.push(m.payload as ChunkPayload));
    const uid = await newJob(CSV);
    await splitter.split(WS, uid);
    await new Promise((r) => setTimeout(r, 20));
    await importer.handle(published[0]!);
    published.length = 0;
    await splitter.split(WS, uid);
    await new Promise((r) => setTimeout(r, 20));
    expect(published.map((p) => p.index).sort()).toEqual([1, 2]);
  });
});
