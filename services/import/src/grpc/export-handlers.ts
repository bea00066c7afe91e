/** Translation only: proto ↔ exports (export-requests.ts). */
import type { CallContext, CallerContext, importV1, ServiceHandlers, StreamHandler } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { ExportRequests } from '../application/export-requests';
import { progressPercent, type ExportJobDocument } from '../domain/export-job';

function callerOf(context: CallContext): CallerContext {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  return {
    workspaceId: context.workspaceId,
    actorId: context.actorId,
    actorKind: context.actorKind,
    requestId: context.requestId,
    ...(context.apiKeyId ? { apiKeyId: context.apiKeyId } : {}),
  };
}

export function exportMessage(job: ExportJobDocument): importV1.ExportJob {
  return {
    id: job.id,
    kind: job.kind,
    format: job.format,
    status: job.status,
    rowCount: job.rowCount,
    progressPercent: progressPercent(job),
    createdAt: job.createdAt,
    startedAt: job.startedAt ?? '',
    finishedAt: job.finishedAt ?? '',
    errorMessage: job.errorMessage,
  };
}

const download =
  (exports: ExportRequests): StreamHandler<importV1.GetExportRequest, importV1.DownloadExportResponse> =>
  async (request, context, send) => {
    for await (const part of exports.download(callerOf(context), request.id)) {
      await send(
        'contentType' in part
          ? { contentType: part.contentType, data: Buffer.alloc(0) }
          : { contentType: '', data: Buffer.from(part.data) },
      );
    }
  };

export function exportHandlers(exports: ExportRequests): ServiceHandlers {
  return {
    CreateExport: async (request: importV1.CreateExportRequest, context: CallContext): Promise<importV1.ExportJobResponse> => ({
      job: exportMessage(
        await exports.create(callerOf(context), {
          kind: request.kind,
          format: request.format,
          filter: request.filter,
          search: request.search,
          ordering: request.ordering,
          fields: request.fields ?? [],
        }),
      ),
    }),
    GetExport: async (request: importV1.GetExportRequest, context: CallContext): Promise<importV1.ExportJobResponse> => ({
      job: exportMessage(await exports.get(callerOf(context), request.id)),
    }),
    ListExports: async (request: importV1.ListExportsRequest, context: CallContext): Promise<importV1.ListExportsResponse> => {
      const page = await exports.list(callerOf(context), request.offset, request.limit);
      return { total: page.total, jobs: page.items.map(exportMessage) };
    },
    DownloadExport: download(exports),
  };
}
