/**
 * Deletes ended import jobs (complete, failed, cancelled) IMPORT_RETENTION_DAYS after they ended,
 * with what hangs off them: the uploaded file, the chunk plan and the report rows (the raw cells
 * of the rows that failed, personal data). A job's children go before the job, so a pass that
 * stops part-way finds the job again next time. Every `intervalMs`, the replica holding the lease
 * erases at most `batchSize` jobs, so a pass is bounded however much is due.
 */
import type { Logger } from '@crm/observability';
import { isoDaysBefore } from '@crm/store';
import type { FileStorage } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';

/** One replica at a time (a StoreLease). */
export interface SweepLease {
  acquire(now: number): Promise<boolean>;
  release(): Promise<void>;
}

export interface ImportRetentionDeps {
  repo: ImportJobRepository;
  files: FileStorage;
  lease: SweepLease;
  logger: Logger;
  retentionDays: number;
  intervalMs: number;
  batchSize: number;
}

export class ImportRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly deps: ImportRetentionDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = undefined));
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.deps.lease.release().catch(() => undefined);
  }

  /** One pass; how many jobs went (0 too when another replica holds the lease). */
  async sweep(now = Date.now()): Promise<number> {
    const { repo, files, lease, logger } = this.deps;
    let erased = 0;
    if (this.stopped) return erased;
    try {
      if (!(await lease.acquire(now))) return erased;
      for (const job of await repo.endedBefore(isoDaysBefore(now, this.deps.retentionDays), this.deps.batchSize)) {
        if (this.stopped) break;
        // Usually gone when the job ended; a removal that failed then is retried here.
        await files.remove(job.fileId);
        await repo.erase(job.workspaceId, job.id);
        erased += 1;
      }
      if (erased > 0) logger.info({ erased }, 'import retention: deleted ended jobs past their retention');
    } catch (error) {
      logger.warn({ err: error }, 'import retention sweep failed; will retry');
    }
    return erased;
  }
}
