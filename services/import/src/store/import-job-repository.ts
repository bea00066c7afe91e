/**
 * Every read and write of import jobs and their chunk plans. The rules that make the counters
 * true at every poll live in the writes here: a chunk's result is stored on the chunk and added to
 * the job in one unit of work that only applies while the chunk is still pending, so counting a
 * chunk twice is impossible; ending a job is a conditional move that only one caller wins.
 */
import { StoreError, type DocumentStore, type ScopedStore } from '@crm/store';
import {
  isFinished,
  isTerminal,
  timestamp,
  type ChunkResult,
  type ImportJobDocument,
  type RowDuplicate,
  type RowError,
} from '../domain/import-job';
import { activeJobs, importChunks, importJobs, type ImportChunkDocument } from './collections';

export const JOB_LIST_LIMIT = 50;

export function chunkId(jobUid: string, index: number): string {
  return `${jobUid}:${index}`;
}

export class ImportJobRepository {
  constructor(
    private readonly store: DocumentStore,
    private readonly now: () => number = Date.now,
  ) {}

  private ws(workspaceId: string): ScopedStore {
    return this.store.forWorkspace(workspaceId);
  }

  /** The job and its sweeper marker; the marker first, so a job never exists unwatched. */
  async createJob(job: ImportJobDocument & { workspaceId: string }, stallMs: number): Promise<void> {
    await this.store.global().insert(activeJobs, { id: job.id, jobWorkspaceId: job.workspaceId, checkAt: this.now() + stallMs });
    await this.ws(job.workspaceId).insert(importJobs, job);
  }

  get(workspaceId: string, jobUid: string): Promise<ImportJobDocument | null> {
    return this.ws(workspaceId).get(importJobs, jobUid);
  }

  listRecent(workspaceId: string): Promise<ImportJobDocument[]> {
    return this.ws(workspaceId).find(importJobs, { sort: [{ field: 'createdAt', direction: 'desc' }], limit: JOB_LIST_LIMIT });
  }

  chunks(workspaceId: string, jobUid: string): Promise<ImportChunkDocument[]> {
    return this.ws(workspaceId).find(importChunks, {
      where: [{ field: 'jobUid', op: 'eq', value: jobUid }],
      sort: [{ field: 'index', direction: 'asc' }],
    });
  }

  /** Errors and duplicates counted so far, from the chunks (the job holds them only once ended). */
  async liveRows(workspaceId: string, jobUid: string): Promise<{ errors: RowError[]; duplicates: RowDuplicate[] }> {
    const done = await this.ws(workspaceId).find(importChunks, {
      where: [
        { field: 'jobUid', op: 'eq', value: jobUid },
        { field: 'status', op: 'eq', value: 'done' },
      ],
    });
    return { errors: done.flatMap((c) => c.errors), duplicates: done.flatMap((c) => c.duplicates) };
  }

  /** queued → processing; false when the job is no longer queued (already started, or ended). */
  async markStarted(workspaceId: string, jobUid: string): Promise<boolean> {
    const now = this.now();
    const updated = await this.ws(workspaceId).update(
      importJobs,
      jobUid,
      { set: { status: 'processing', startedAt: timestamp(new Date(now)), lastProgressMs: now } },
      { where: [{ field: 'status', op: 'eq', value: 'queued' }] },
    );
    return updated !== null;
  }

  async recordHeader(workspaceId: string, jobUid: string, ignoredColumns: string[]): Promise<void> {
    await this.ws(workspaceId).update(importJobs, jobUid, { set: { ignoredColumns, lastProgressMs: this.now() } });
  }

  /**
   * Records that a chunk exists and is about to be (re)published; returns its publish count so far
   * (before this one) and whether it is already done.
   */
  async planChunk(workspaceId: string, jobUid: string, index: number, firstRow: number, rowCount: number): Promise<ImportChunkDocument> {
    const scoped = this.ws(workspaceId);
    const id = chunkId(jobUid, index);
    const existing = await scoped.get(importChunks, id);
    if (existing && existing.status === 'done') return existing;
    const fresh: ImportChunkDocument = {
      id,
      jobUid,
      index,
      firstRow,
      rowCount,
      status: 'pending',
      publishCount: 0,
      successCount: 0,
      errors: [],
      duplicates: [],
    };
    const chunk = existing ?? (await scoped.upsert(importChunks, fresh, {}));
    const totalRows = firstRow - 1 + rowCount;
    await scoped.update(
      importJobs,
      jobUid,
      { set: { totalRows, lastProgressMs: this.now() } },
      { where: [{ field: 'totalRows', op: 'lt', value: totalRows }] },
    );
    return chunk;
  }

  async countPublish(workspaceId: string, jobUid: string, index: number): Promise<void> {
    await this.ws(workspaceId).update(importChunks, chunkId(jobUid, index), { inc: { publishCount: 1 } });
  }

  async recordSplitDone(
    workspaceId: string,
    jobUid: string,
    totalRows: number,
    chunkCount: number,
    ignoredColumns: string[],
  ): Promise<void> {
    await this.ws(workspaceId).update(importJobs, jobUid, {
      set: { splitDone: true, totalRows, chunkCount, ignoredColumns, lastProgressMs: this.now() },
    });
  }

  /**
   * Counts a chunk's result once: the chunk moves pending → done with its result, and the job's
   * counters move by the same amounts, in one unit of work. Returns false when the chunk was
   * already counted (a redelivery) or the job has ended.
   */
  async applyChunkResult(workspaceId: string, jobUid: string, index: number, result: ChunkResult): Promise<boolean> {
    try {
      await this.ws(workspaceId).commit([
        {
          kind: 'update',
          collection: importChunks,
          id: chunkId(jobUid, index),
          where: [{ field: 'status', op: 'eq', value: 'pending' }],
          change: { set: { status: 'done', successCount: result.successCount, errors: result.errors, duplicates: result.duplicates } },
        },
        {
          kind: 'update',
          collection: importJobs,
          id: jobUid,
          where: [{ field: 'status', op: 'eq', value: 'processing' }],
          change: {
            inc: {
              successCount: result.successCount,
              errorCount: result.errors.length,
              duplicateCount: result.duplicates.length,
              chunksDone: 1,
            },
            set: { lastProgressMs: this.now() },
          },
        },
      ]);
      return true;
    } catch (error) {
      if (error instanceof StoreError && error.code === 'conflict') return false;
      throw error;
    }
  }

  /**
   * processing → complete once every chunk is counted: the errors and duplicates move onto the
   * job, and the chunk plan and the sweeper marker go. Returns the job when this call completed it.
   */
  async completeIfFinished(workspaceId: string, jobUid: string): Promise<ImportJobDocument | null> {
    const job = await this.get(workspaceId, jobUid);
    if (!job || job.status !== 'processing' || !isFinished(job)) return null;
    const { errors, duplicates } = await this.liveRows(workspaceId, jobUid);
    const now = this.now();
    const completed = await this.ws(workspaceId).update(
      importJobs,
      jobUid,
      { set: { status: 'complete', finishedAt: timestamp(new Date(now)), errors, duplicates, lastProgressMs: now } },
      { where: [{ field: 'status', op: 'eq', value: 'processing' }] },
    );
    if (!completed) return null;
    await this.forget(workspaceId, jobUid);
    return completed;
  }

  /** → failed with a reason a person can act on; false when the job had already ended. */
  async fail(workspaceId: string, jobUid: string, errorMessage: string): Promise<ImportJobDocument | null> {
    const now = this.now();
    const { errors, duplicates } = await this.liveRows(workspaceId, jobUid);
    const failed = await this.ws(workspaceId).update(
      importJobs,
      jobUid,
      { set: { status: 'failed', errorMessage, errors, duplicates, finishedAt: timestamp(new Date(now)), lastProgressMs: now } },
      { where: [{ field: 'status', op: 'in', values: ['queued', 'processing'] }] },
    );
    if (!failed) return null;
    await this.forget(workspaceId, jobUid);
    return failed;
  }

  private async forget(workspaceId: string, jobUid: string): Promise<void> {
    await this.ws(workspaceId).deleteMany(importChunks, [{ field: 'jobUid', op: 'eq', value: jobUid }]);
    await this.store.global().delete(activeJobs, jobUid);
  }

  // ---------------------------------------------------------------- sweeper

  /** Markers due for a look, oldest first. */
  dueMarkers(limit = 100) {
    return this.store.global().find(activeJobs, {
      where: [{ field: 'checkAt', op: 'lte', value: this.now() }],
      sort: [{ field: 'checkAt', direction: 'asc' }],
      limit,
    });
  }

  /** Moves a marker's next look to later; false when another sweeper took it first. */
  async claimMarker(jobUid: string, seenCheckAt: number, nextCheckAt: number): Promise<boolean> {
    const updated = await this.store
      .global()
      .update(activeJobs, jobUid, { set: { checkAt: nextCheckAt } }, { where: [{ field: 'checkAt', op: 'eq', value: seenCheckAt }] });
    return updated !== null;
  }

  dropMarker(jobUid: string): Promise<boolean> {
    return this.store.global().delete(activeJobs, jobUid);
  }

  async touch(workspaceId: string, jobUid: string): Promise<void> {
    await this.ws(workspaceId).update(importJobs, jobUid, { set: { lastProgressMs: this.now() } });
  }

  isTerminal(job: ImportJobDocument): boolean {
    return isTerminal(job.status);
  }
}
