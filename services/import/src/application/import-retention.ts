/**
 * Deletes ended import jobs (complete, failed, cancelled) IMPORT_RETENTION_DAYS after they ended,
 * with what hangs off them: the uploaded file, the chunk plan and the report rows (the raw cells
 * of the rows that failed, personal data). A job's children go before the job, so a pass that
 * stops part-way finds the job again next time. Every `intervalMs`, the replica holding the lease
 * erases at most `batchSize` jobs, so a pass is bounded however much is due.
 */
import { isoDaysBefore, LeasedSweep, type LeasedSweepDeps } from '@crm/store';
import type { FileStorage } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';

export interface ImportRetentionDeps extends LeasedSweepDeps {
  repo: ImportJobRepository;
  files: FileStorage;
  retentionDays: number;
  batchSize: number;
}

export class ImportRetention extends LeasedSweep<number> {
  constructor(private readonly deps: ImportRetentionDeps) {
    super(deps, 'import retention', () => 0);
  }

  protected async pass(now: number): Promise<number> {
    const { repo, files } = this.deps;
    let erased = 0;
    for (const job of await repo.endedBefore(isoDaysBefore(now, this.deps.retentionDays), this.deps.batchSize)) {
      if (this.isStopped()) break;
      // Usually gone when the job ended; a removal that failed then is retried here.
      await files.remove(job.fileId);
      await repo.erase(job.workspaceId, job.id);
      erased += 1;
    }
    if (erased > 0) this.deps.logger.info({ erased }, 'import retention: deleted ended jobs past their retention');
    return erased;
  }
}
