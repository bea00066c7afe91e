/** Translation only: proto ↔ the import job reads, the cancel and the report pages. */
import type { CallContext, ServiceHandlers, importV1 } from '@crm/grpc';
import { DomainError, type Logger } from '@crm/observability';
import type { ContactFileReaders } from '../application/contact-file-readers';
import { reportPage } from '../application/import-report-export';
import { importContactsNow } from '../application/instant-import';
import type { RecordsClient } from '../application/ports';
import { cancelImportJob } from '../application/job-cancellation';
import { keptReport, viewOf, type ImportJobDocument, type ImportJobView } from '../domain/import-job';
import type { FileStorage } from '../store/file-storage';
import type { ImportJobRepository } from '../store/import-job-repository';

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function workspaceOf(context: CallContext): string {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  return context.workspaceId;
}

/** A well-formed job uid; anything else cannot name a job, so it is not found. */
function jobUidOf(request: { uid: string }): string {
  if (!UID.test(request.uid)) throw DomainError.notFound();
  return request.uid;
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
    duplicateCount: view.duplicateCount,
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

export interface ImportHandlerDeps {
  repo: ImportJobRepository;
  files: FileStorage;
  logger: Logger;
  records: RecordsClient;
  readers: ContactFileReaders;
}

export function importHandlers(deps: ImportHandlerDeps): ServiceHandlers {
  const { repo } = deps;
  /** The job with its first errors and duplicates. */
  const fullView = async (workspaceId: string, job: ImportJobDocument) =>
    viewOf(job, keptReport(job) ?? (await repo.reports.first(workspaceId, job.id)));
  return {
    GetImportJob: async (request: importV1.GetImportJobRequest, context: CallContext): Promise<importV1.GetImportJobResponse> => {
      const workspaceId = workspaceOf(context);
      const job = await repo.get(workspaceId, jobUidOf(request));
      if (!job) throw DomainError.notFound();
      return { job: importJobMessage(await fullView(workspaceId, job)) };
    },
    ListImportJobs: async (_request: importV1.ListImportJobsRequest, context: CallContext): Promise<importV1.ListImportJobsResponse> => {
      const jobs = await repo.listRecent(workspaceOf(context));
      return { jobs: jobs.map((job) => importJobMessage(viewOf(job))) };
    },
    CancelImportJob: async (request: importV1.CancelImportJobRequest, context: CallContext): Promise<importV1.CancelImportJobResponse> => {
      const workspaceId = workspaceOf(context);
      const job = await cancelImportJob(deps, workspaceId, jobUidOf(request));
      return { job: importJobMessage(await fullView(workspaceId, job)) };
    },
    GetImportReportPage: async (
      request: importV1.GetImportReportPageRequest,
      context: CallContext,
    ): Promise<importV1.GetImportReportPageResponse> => reportPage(repo, workspaceOf(context), jobUidOf(request), request.afterRow),
    ImportContactsNow: async (
      request: importV1.ImportContactsNowRequest,
      context: CallContext,
    ): Promise<importV1.ImportContactsNowResponse> => {
      const caller = {
        workspaceId: workspaceOf(context),
        actorId: context.actorId,
        actorKind: context.actorKind,
        requestId: context.requestId,
      };
      return importContactsNow(deps, caller, {
        filename: request.filename,
        content: request.content,
        sourceUid: request.sourceUid.trim() || null,
        fieldMappings: request.fieldMappings,
        dryRun: request.dryRun,
        signal: context.signal,
      });
    },
  };
}
