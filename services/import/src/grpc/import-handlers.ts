/** Translation only: proto ↔ the import job reads. */
import type { CallContext, ServiceHandlers, importV1 } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import { viewOf, type ImportJobDocument, type ImportJobView } from '../domain/import-job';
import type { ImportJobRepository } from '../store/import-job-repository';

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function workspaceOf(context: CallContext): string {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  return context.workspaceId;
}

export function importJobMessage(view: ImportJobView): importV1.ImportJob {
  return {
    uid: view.uid,
    filename: view.filename,
    status: view.status,
    progressPercent: view.progressPercent,
    totalRows: view.totalRows,
    processedRows: view.processedRows,
    successCount: view.successCount,
    errorCount: view.errorCount,
    errors: view.errors,
    duplicates: view.duplicates.map((d) => ({ row: d.row, email: d.email, existingContactId: d.existingContactId ?? '' })),
    errorMessage: view.errorMessage,
    sourceName: view.sourceName,
    createdAt: view.createdAt,
    startedAt: view.startedAt ?? '',
    finishedAt: view.finishedAt ?? '',
    ignoredColumns: view.ignoredColumns,
  };
}

export function importHandlers(repo: ImportJobRepository): ServiceHandlers {
  const view = async (workspaceId: string, job: ImportJobDocument) =>
    viewOf(job, job.errors === null ? await repo.liveRows(workspaceId, job.id) : undefined);
  return {
    GetImportJob: async (request: importV1.GetImportJobRequest, context: CallContext): Promise<importV1.GetImportJobResponse> => {
      const workspaceId = workspaceOf(context);
      if (!UID.test(request.uid)) throw DomainError.notFound();
      const job = await repo.get(workspaceId, request.uid);
      if (!job) throw DomainError.notFound();
      return { job: importJobMessage(await view(workspaceId, job)) };
    },
    ListImportJobs: async (_request: importV1.ListImportJobsRequest, context: CallContext): Promise<importV1.ListImportJobsResponse> => {
      const workspaceId = workspaceOf(context);
      const jobs = await repo.listRecent(workspaceId);
      return { jobs: await Promise.all(jobs.map(async (job) => importJobMessage(await view(workspaceId, job)))) };
    },
  };
}
