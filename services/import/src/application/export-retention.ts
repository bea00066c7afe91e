/**
 * Deletes exports EXPORT_RETENTION_DAYS after they were asked for, file first: every
 * `intervalMs`, the replica holding the lease erases at most `batchSize` of them, so a pass is
 * bounded however much is due. A deleted export answers 404, download included.
 */
import type { Logger } from '@crm/observability';
import { isoDaysBefore } from '@crm/store';
import type { ExportJobRepository } from '../store/export-job-repository';
import type { SweepLease } from './import-retention';

export interface ExportRetentionDeps {
  repo: ExportJobRepository;
  lease: SweepLease;
  logger: Logger;
  retentionDays: number;
  intervalMs: number;
  batchSize: number;
}

export class ExportRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(private readonly deps: ExportRetentionDeps) {}

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

  /** One pass; how many exports went (0 too when another replica holds the lease). */
  async sweep(now = Date.now()): Promise<number> {
    const { repo, lease, logger } = this.deps;
    let erased = 0;
    if (this.stopped) return erased;
    try {
      if (!(await lease.acquire(now))) return erased;
      for (const job of await repo.createdBefore(isoDaysBefore(now, this.deps.retentionDays), this.deps.batchSize)) {
        if (this.stopped) break;
        await repo.erase(job.workspaceId, job.id);
        erased += 1;
      }
      if (erased > 0) logger.info({ erased }, 'export retention: deleted exports past their retention');
    } catch (error) {
      logger.warn({ err: error }, 'export retention sweep failed; will retry');
    }
    return erased;
  }
}
