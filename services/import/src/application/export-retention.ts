/**
 * Deletes exports EXPORT_RETENTION_DAYS after they were asked for, file first: every
 * `intervalMs`, the replica holding the lease erases at most `batchSize` of them, so a pass is
 * bounded however much is due. A deleted export answers 404, download included.
 */
import { isoDaysBefore, LeasedSweep, type LeasedSweepDeps } from '@crm/store';
import type { ExportJobRepository } from '../store/export-job-repository';

export interface ExportRetentionDeps extends LeasedSweepDeps {
  repo: ExportJobRepository;
  retentionDays: number;
  batchSize: number;
}

export class ExportRetention extends LeasedSweep<number> {
  constructor(private readonly deps: ExportRetentionDeps) {
    super(deps, 'export retention', () => 0);
  }

  protected async pass(now: number): Promise<number> {
    const { repo } = this.deps;
    let erased = 0;
    for (const job of await repo.createdBefore(isoDaysBefore(now, this.deps.retentionDays), this.deps.batchSize)) {
      if (this.isStopped()) break;
      await repo.erase(job.workspaceId, job.id);
      erased += 1;
    }
    if (erased > 0) this.deps.logger.info({ erased }, 'export retention: deleted exports past their retention');
    return erased;
  }
}
