/**
 * Import retention on SQLite :memory: with files in memory: ended jobs past IMPORT_RETENTION_DAYS go
 * with their file, chunks and report rows; running and recent jobs stay.
 */
import { createLogger } from '@crm/observability';
import { isoDaysBefore, openStore, sqliteQueryPlan, StoreLease, type DocumentStore, type Query } from '@crm/store';
import type { ImportJobStatus } from '../domain/import-job';
import { activeJobs, importChunks, importCollections, importJobs, importReportRows } from '../store/collections';
import { ImportJobRepository } from '../store/import-job-repository';
import { MemoryFiles } from '../testing/memory-files';
import { queuedJob } from '../testing/queued-job';
import { ImportRetention } from './import-retention';

const logger = createLogger('import-retention-test', { level: 'silent' });
const NOW = Date.parse('2026-06-01T00:00:00Z');

let store: DocumentStore;
let files: MemoryFiles;
let repo: ImportJobRepository;

beforeEach(async () => {
  store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: importCollections });
  files = new MemoryFiles();
  repo = new ImportJobRepository(store);
});
afterEach(() => store.close());

function retention(batchSize = 100): ImportRetention {
  return new ImportRetention({
    repo,
    files,
    lease: new StoreLease(store, 'import-retention', 60_000),
    logger,
    retentionDays: 90,
    intervalMs: 20_000,
    batchSize,
  });
}

/** A job in `workspaceId` that ended (or, with null, has not) `daysAgo` days before NOW, with a chunk, a report row and its file. */
async function job(uid: string, workspaceId: string, status: ImportJobStatus, daysAgo: number | null): Promise<void> {
  const scoped = store.forWorkspace(workspaceId);
  const finishedAt = daysAgo === null ? null : isoDaysBefore(NOW, daysAgo);
  await scoped.insert(importJobs, { ...queuedJob(uid, workspaceId, 10), status, finishedAt });
  await store.global().insert(activeJobs, { id: uid, jobWorkspaceId: workspaceId, checkAt: 0 });
  await scoped.insert(importChunks, {
    id: `${uid}:0`,
    jobUid: uid,
    index: 0,
    firstRow: 1,
    rowCount: 1,
    status: 'done',
    publishCount: 1,
    successCount: 0,
    errorCount: 1,
    duplicateCount: 0,
  });
  await scoped.insert(importReportRows, {
    id: `${uid}:1`,
    jobUid: uid,
    row: 1,
    kind: 'error',
    message: 'bad email',
    existingContactId: null,
    earlierRow: null,
    cells: ['Ada', 'not-an-email'],
  });
  files.files.set(uid, Buffer.from('name,email\nAda,not-an-email\n'));
}

async function kept(uid: string, workspaceId: string) {
  const scoped = store.forWorkspace(workspaceId);
  return {
    job: (await repo.get(workspaceId, uid)) !== null,
    chunks: await scoped.count(importChunks, [{ field: 'jobUid', op: 'eq', value: uid }]),
    reportRows: await scoped.count(importReportRows, [{ field: 'jobUid', op: 'eq', value: uid }]),
    marker: (await store.global().get(activeJobs, uid)) !== null,
    file: files.files.has(uid),
  };
}

const everything = { job: true, chunks: 1, reportRows: 1, marker: true, file: true };
const nothing = { job: false, chunks: 0, reportRows: 0, marker: false, file: false };

describe('import retention', () => {
  it('deletes ended jobs past their retention in every workspace, with their chunks, report rows and file', async () => {
    await job('imp_done', 'ws_a', 'complete', 91);
    await job('imp_failed', 'ws_b', 'failed', 120);
    await job('imp_cancelled', 'ws_b', 'cancelled', 365);
    expect(await retention().sweep(NOW)).toBe(3);
    expect(await kept('imp_done', 'ws_a')).toEqual(nothing);
    expect(await kept('imp_failed', 'ws_b')).toEqual(nothing);
    expect(await kept('imp_cancelled', 'ws_b')).toEqual(nothing);
  });

  it('keeps jobs that ended within the retention and jobs that have not ended', async () => {
    await job('imp_recent', 'ws_a', 'complete', 89);
    await job('imp_running', 'ws_a', 'processing', null);
    expect(await retention().sweep(NOW)).toBe(0);
    expect(await kept('imp_recent', 'ws_a')).toEqual(everything);
    expect(await kept('imp_running', 'ws_a')).toEqual(everything);
  });

  it('erases at most a batch of jobs per pass, oldest first, and drains a backlog over several passes', async () => {
    for (let i = 0; i < 5; i += 1) await job(`imp_${i}`, 'ws_a', 'complete', 100 + i);
    const sweeper = retention(2);
    expect(await sweeper.sweep(NOW)).toBe(2);
    expect((await kept('imp_4', 'ws_a')).job).toBe(false);
    expect((await kept('imp_0', 'ws_a')).job).toBe(true);
    expect(await sweeper.sweep(NOW)).toBe(2);
    expect(await sweeper.sweep(NOW)).toBe(1);
    expect(await sweeper.sweep(NOW)).toBe(0);
  });

  it('lets one replica sweep at a time', async () => {
    await job('imp_a', 'ws_a', 'complete', 100);
    await job('imp_b', 'ws_a', 'complete', 100);
    const first = retention(1);
    const second = retention(1);
    expect(await first.sweep(NOW)).toBe(1);
    expect(await second.sweep(NOW)).toBe(0);
    await first.stop();
    expect(await second.sweep(NOW)).toBe(1);
  });

  it('reads the expired jobs off the finishedAt index across workspaces, oldest first, without a sort', async () => {
    const reads: Query[] = [];
    const watched: DocumentStore = {
      ...store,
      findAcrossWorkspaces: ((collection, query) => {
        reads.push(query);
        return store.findAcrossWorkspaces(collection, query);
      }) as DocumentStore['findAcrossWorkspaces'],
    };
    repo = new ImportJobRepository(watched);
    await retention().sweep(NOW);
    expect(reads).toHaveLength(1);
    expect(sqliteQueryPlan(importJobs, reads[0]!)).toMatch(
      /^SEARCH import_jobs USING INDEX import_jobs__finishedAt__id \(\S*finishedAt<\?\)$/,
    );
  });

  it('finds a job again when a pass stopped after its children went', async () => {
    await job('imp_half', 'ws_a', 'failed', 100);
    await store.forWorkspace('ws_a').deleteMany(importReportRows, [{ field: 'jobUid', op: 'eq', value: 'imp_half' }]);
    files.files.delete('imp_half');
    expect(await retention().sweep(NOW)).toBe(1);
    expect(await kept('imp_half', 'ws_a')).toEqual(nothing);
  });
});
