/**
 * What import tells others about jobs: a job that ended complete or failed, on the bus as
 * `import.job_completed.v1` / `import.job_failed.v1` (automation posts them as import.completed
 * and import.failed webhooks). Published after the job's end is written, by whichever worker wrote
 * it, with `<job id>:<status>` as the message id; the job's sweeper marker stays until then, so a
 * worker stopping between the write and the publish leaves it to the sweeper to publish again.
 */
import type { MessageBus } from '@crm/bus';
import type { ImportJobDocument } from '../domain/import-job';
import { systemClock, type Clock } from '@crm/vocabulary';

export const JOB_COMPLETED_MESSAGE = 'import.job_completed.v1';
export const JOB_FAILED_MESSAGE = 'import.job_failed.v1';

export interface JobEndedPayload {
  workspaceId: string;
  jobUid: string;
  status: 'complete' | 'failed';
  filename: string;
  totalRows: number;
  successCount: number;
  errorCount: number;
  duplicateCount: number;
  /** Why a failed job failed; empty when complete. */
  errorMessage: string;
  finishedAt: string | null;
}

export class ImportEvents {
  constructor(
    private readonly bus: MessageBus,
    private readonly clock: Clock = systemClock,
  ) {}

  async ended(job: ImportJobDocument): Promise<void> {
    if (job.status !== 'complete' && job.status !== 'failed') return;
    const payload: JobEndedPayload = {
      workspaceId: job.workspaceId!,
      jobUid: job.id,
      status: job.status,
      filename: job.filename,
      totalRows: job.totalRows,
      successCount: job.successCount,
      errorCount: job.errorCount,
      duplicateCount: job.duplicateCount,
      errorMessage: job.errorMessage,
      finishedAt: job.finishedAt,
    };
    await this.bus.publish({
      id: `${job.id}:${job.status}`,
      type: job.status === 'complete' ? JOB_COMPLETED_MESSAGE : JOB_FAILED_MESSAGE,
      correlationId: job.id,
      occurredAt: this.clock().toISOString(),
      payload,
    });
  }
}
