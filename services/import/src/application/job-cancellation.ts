/**
 * Cancelling an import: the job moves to cancelled (no chunk not yet claimed is imported from
 * then on, see ImportJobRepository.claimChunk) and its uploaded file goes. Only a job still
 * queued or processing can be cancelled.
 */
import { DomainError, type Logger } from '@crm/observability';
import type { ImportJobDocument } from '../domain/import-job';
import type { FileStorage } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';

export async function cancelImportJob(
  deps: { repo: ImportJobRepository; files: FileStorage; logger: Logger },
  workspaceId: string,
  jobUid: string,
): Promise<ImportJobDocument> {
  const cancelled = await deps.repo.cancel(workspaceId, jobUid);
  if (!cancelled) {
    const job = await deps.repo.get(workspaceId, jobUid);
    if (!job) throw DomainError.notFound();
    throw DomainError.conflict(`The import job is already ${job.status}; only a queued or processing job can be cancelled.`);
  }
  await deps.files
    .remove(cancelled.fileId)
    .catch((err: unknown) => deps.logger.warn({ err, jobUid }, 'could not remove a cancelled import file'));
  deps.logger.info(
    { jobUid, workspaceId, successCount: cancelled.successCount, errorCount: cancelled.errorCount, duplicates: cancelled.duplicateCount },
    'import cancelled',
  );
  return cancelled;
}
