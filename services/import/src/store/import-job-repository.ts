/**
 * Every read and write of import jobs and their chunk plans. The rules that make the counters
 * true at every poll live in the writes here: a chunk is claimed only while its job is processing
 * (so a cancel stops every chunk not claimed yet), and its result, counts and report rows are
 * added in one unit of work that only applies while the chunk is claimed, so counting a chunk
 * twice is impossible; ending a job is a conditional move that only one caller wins.
 */
import { StoreError, type Condition, type DocumentStore, type ScopedStore } from '@crm/store';
import { apiTimestamp } from '@crm/vocabulary';
import { isFinished, isTerminal, type ChunkResult, type ImportJobDocument } from '../domain/import-job';
import { activeJobs, importChunks, importJobs, importReportRows, type ImportChunkDocument } from './collections';
import { ImportReportRepository } from './import-report-repository';

export const JOB_LIST_LIMIT = 50;

export function chunkId(jobUid: string, index: number): string {
  return `${jobUid}:${index}`;
}

/** What claiming a chunk found: go on and import it, or leave it (done already, or its job has ended). */
export type ChunkClaim = 'import' | 'leave';

export class ImportJobRepository {
  readonly reports: ImportReportRepository;

  constructor(
    private readonly store: DocumentStore,
    private readonly now: () => number = Date.now,
  ) {
    this.reports = new ImportReportRepository(store);
  }

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

  /** queued → processing; false when the job is no longer queued (already started, or ended). */
  async markStarted(workspaceId: string, jobUid: string): Promise<boolean> {
    const now = this.now();
    const updated = await this.ws(workspaceId).update(
      importJobs,
      jobUid,
      { set: { status: 'processing', startedAt: apiTimestamp(new Date(now)), lastProgressMs: now } },
      { where: [{ field: 'status', op: 'eq', value: 'queued' }] },
    );
    return updated !== null;
  }

  async recordHeader(workspaceId: string, jobUid: string, ignoredColumns: string[], cells: string[]): Promise<void> {
    await this.reports.recordHeader(workspaceId, jobUid, cells);
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
      errorCount: 0,
      duplicateCount: 0,
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

  /** After the bus confirmed a publish of the chunk: one more towards giving up on it, and active now. */
  async countPublish(workspaceId: string, jobUid: string, index: number): Promise<void> {
    await this.ws(workspaceId).update(importChunks, chunkId(jobUid, index), { inc: { publishCount: 1 }, set: { activeAtMs: this.now() } });
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
   * Before a chunk is imported: pending → claimed, only while its job is processing. A chunk
   * claimed before (a redelivery, or a second worker) is imported again, even after a cancel: its
   * contacts may exist already, the records call is idempotent, and counting it keeps the job's
   * counts equal to what was created. A chunk done, gone, being given up on, or not claimed before
   * its job ended is left. Either claim marks the chunk active, so it is not given up on meanwhile.
   */
  async claimChunk(workspaceId: string, jobUid: string, index: number): Promise<ChunkClaim> {
    const scoped = this.ws(workspaceId);
    const id = chunkId(jobUid, index);
    const chunk = await scoped.get(importChunks, id);
    if (!chunk || chunk.status === 'done' || chunk.status === 'giving_up') return 'leave';
    if (chunk.status === 'claimed') return (await this.holdChunk(workspaceId, jobUid, index)) ? 'import' : 'leave';
    try {
      await scoped.commit([
        {
          kind: 'update',
          collection: importChunks,
          id,
          where: [{ field: 'status', op: 'eq', value: 'pending' }],
          change: { set: { status: 'claimed', activeAtMs: this.now() } },
        },
        {
          kind: 'update',
          collection: importJobs,
          id: jobUid,
          where: [{ field: 'status', op: 'eq', value: 'processing' }],
          change: { set: { lastProgressMs: this.now() } },
        },
      ]);
      return 'import';
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'conflict')) throw error;
      // Another worker may have claimed it in the meantime; then it is imported by both, counted once.
      const now = await scoped.get(importChunks, id);
      return now?.status === 'claimed' && (await this.holdChunk(workspaceId, jobUid, index)) ? 'import' : 'leave';
    }
  }

  /** Whoever imports a chunk says it still does (before each batch); false when the chunk is done or gone. */
  async holdChunk(workspaceId: string, jobUid: string, index: number): Promise<boolean> {
    const held = await this.ws(workspaceId).update(
      importChunks,
      chunkId(jobUid, index),
      { set: { activeAtMs: this.now() } },
      { where: [{ field: 'status', op: 'in', values: ['claimed', 'giving_up'] }] },
    );
    return held !== null;
  }

  /**
   * Takes a chunk to give up on (→ giving_up), only when no worker can be on it: not done, and
   * neither published, claimed nor held for `leaseMs`. Workers leave it from then on; false when it
   * could not be taken. A giver-up that stopped midway leaves it idle, to be taken again later.
   */
  async takeToGiveUp(workspaceId: string, jobUid: string, index: number, leaseMs: number): Promise<boolean> {
    const id = chunkId(jobUid, index);
    const chunk = await this.ws(workspaceId).get(importChunks, id);
    const now = this.now();
    if (!chunk || chunk.status === 'done' || (chunk.activeAtMs ?? 0) > now - leaseMs) return false;
    const seen: Condition =
      chunk.activeAtMs === undefined
        ? { field: 'activeAtMs', op: 'exists', value: false }
        : { field: 'activeAtMs', op: 'eq', value: chunk.activeAtMs };
    const taken = await this.ws(workspaceId).update(
      importChunks,
      id,
      { set: { status: 'giving_up', activeAtMs: now } },
      { where: [{ field: 'status', op: 'eq', value: chunk.status }, seen] },
    );
    return taken !== null;
  }

  /**
   * Counts a claimed chunk's result (or that of one being given up on) once: the chunk moves to done, the job's counters move
   * by its result (also when the job was cancelled while the chunk was being imported) and its
   * errors and duplicates join the report, in one unit of work. Returns false when the chunk was
   * already counted (a redelivery).
   */
  async applyChunkResult(workspaceId: string, jobUid: string, index: number, result: ChunkResult): Promise<boolean> {
    try {
      await this.ws(workspaceId).commit([
        {
          kind: 'update',
          collection: importChunks,
          id: chunkId(jobUid, index),
          where: [{ field: 'status', op: 'in', values: ['claimed', 'giving_up'] }],
          change: {
            set: {
              status: 'done',
              successCount: result.successCount,
              errorCount: result.errors.length,
              duplicateCount: result.duplicates.length,
            },
          },
        },
        {
          kind: 'update',
          collection: importJobs,
          id: jobUid,
          where: [{ field: 'status', op: 'in', values: ['processing', 'cancelled'] }],
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
        ...this.reports.rowWrites(jobUid, result),
      ]);
      return true;
    } catch (error) {
      if (error instanceof StoreError && error.code === 'conflict') return false;
      throw error;
    }
  }

  /**
   * processing → complete once every chunk is counted: the job keeps its first errors and
   * duplicates, and the chunk plan and the sweeper marker go. Returns the job when this call completed it.
   */
  async completeIfFinished(workspaceId: string, jobUid: string): Promise<ImportJobDocument | null> {
    const job = await this.get(workspaceId, jobUid);
    if (!job || job.status !== 'processing' || !isFinished(job)) return null;
    const { errors, duplicates } = await this.reports.first(workspaceId, jobUid);
    const now = this.now();
    const completed = await this.ws(workspaceId).update(
      importJobs,
      jobUid,
      { set: { status: 'complete', finishedAt: apiTimestamp(new Date(now)), errors, duplicates, lastProgressMs: now } },
      { where: [{ field: 'status', op: 'eq', value: 'processing' }] },
    );
    // Its sweeper marker stays until the end has been announced (ChunkImporter.finishIfDone).
    return completed;
  }

  /** → failed with a reason a person can act on; null when the job had already ended. The caller announces it, then forgets it. */
  async fail(workspaceId: string, jobUid: string, errorMessage: string): Promise<ImportJobDocument | null> {
    const now = this.now();
    const { errors, duplicates } = await this.reports.first(workspaceId, jobUid);
    const failed = await this.ws(workspaceId).update(
      importJobs,
      jobUid,
      { set: { status: 'failed', errorMessage, errors, duplicates, finishedAt: apiTimestamp(new Date(now)), lastProgressMs: now } },
      { where: [{ field: 'status', op: 'in', values: ['queued', 'processing'] }] },
    );
    return failed;
  }

  /**
   * queued | processing → cancelled: no chunk is claimed from then on. The job keeps no inline
   * entries (chunks claimed before the cancel may still add to its report), and its sweeper marker
   * stays until those have been counted (`tidyCancelled`). Null when the job had already ended.
   */
  async cancel(workspaceId: string, jobUid: string): Promise<ImportJobDocument | null> {
    const now = this.now();
    const cancelled = await this.ws(workspaceId).update(
      importJobs,
      jobUid,
      { set: { status: 'cancelled', finishedAt: apiTimestamp(new Date(now)), lastProgressMs: now } },
      { where: [{ field: 'status', op: 'in', values: ['queued', 'processing'] }] },
    );
    if (cancelled) await this.dropUnclaimedChunks(workspaceId, jobUid);
    return cancelled;
  }

  /**
   * A cancelled job's leftovers: chunks planned by a split that ran on, and chunks counted. Once no
   * chunk is claimed (being imported) the marker goes too; returns whether it did.
   */
  async tidyCancelled(workspaceId: string, jobUid: string): Promise<boolean> {
    await this.dropUnclaimedChunks(workspaceId, jobUid);
    const claimed = await this.ws(workspaceId).count(importChunks, [
      { field: 'jobUid', op: 'eq', value: jobUid },
      { field: 'status', op: 'in', values: ['claimed', 'giving_up'] },
    ]);
    if (claimed > 0) return false;
    await this.store.global().delete(activeJobs, jobUid);
    return true;
  }

  private async dropUnclaimedChunks(workspaceId: string, jobUid: string): Promise<void> {
    await this.ws(workspaceId).deleteMany(importChunks, [
      { field: 'jobUid', op: 'eq', value: jobUid },
      { field: 'status', op: 'in', values: ['pending', 'done'] },
    ]);
  }

  /**
   * An ended job's chunk plan and sweeper marker, in that order, once its end has been announced:
   * a crash before leaves the marker, and the sweeper announces the end again and calls this.
   */
  async forget(workspaceId: string, jobUid: string): Promise<void> {
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

  async touch(workspaceId: string, jobUid: string): Promise<void> {
    await this.ws(workspaceId).update(importJobs, jobUid, { set: { lastProgressMs: this.now() } });
  }

  /** A chunk of the job waits for a retry due at `atMs`: the sweeper counts the job as moving until then. */
  async expectProgressBy(workspaceId: string, jobUid: string, atMs: number): Promise<void> {
    await this.ws(workspaceId).update(importJobs, jobUid, { set: { lastProgressMs: atMs } });
  }

  // ---------------------------------------------------------------- retention

  /** Ended jobs (complete, failed, cancelled) that finished before `before` (ISO), oldest first, in every workspace. */
  async endedBefore(before: string, limit: number): Promise<(ImportJobDocument & { workspaceId: string })[]> {
    const jobs = await this.store.findAcrossWorkspaces(importJobs, {
      where: [
        { field: 'finishedAt', op: 'lt', value: before },
        // Ended (complete, failed, cancelled), said as a negation so that the planner reads this off
        // the finishedAt index across workspaces rather than a workspace's status index.
        { not: [{ field: 'status', op: 'in', values: ['queued', 'processing'] }] },
      ],
      sort: [{ field: 'finishedAt', direction: 'asc' }],
      limit,
    });
    return jobs.filter((job): job is ImportJobDocument & { workspaceId: string } => typeof job.workspaceId === 'string');
  }

  /**
   * An ended job and everything that hangs off it: its report rows, chunk plan and sweeper marker
   * first and the job last, so a crash part-way leaves the job to be found and erased again.
   */
  async erase(workspaceId: string, jobUid: string): Promise<void> {
    const scoped = this.ws(workspaceId);
    await scoped.deleteMany(importReportRows, [{ field: 'jobUid', op: 'eq', value: jobUid }]);
    await scoped.deleteMany(importChunks, [{ field: 'jobUid', op: 'eq', value: jobUid }]);
    await this.store.global().delete(activeJobs, jobUid);
    await scoped.delete(importJobs, jobUid);
  }

  isTerminal(job: ImportJobDocument): boolean {
    return isTerminal(job.status);
  }
}
