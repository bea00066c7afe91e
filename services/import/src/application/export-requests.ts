/**
 * What a caller asks of exports (the server role): start one, read it, list them, download the
 * file. A new export's query is checked by records (the list's own refusals) before it is queued.
 */
import { apiTimestamp } from '@crm/vocabulary';
import { newMessage, type MessageBus } from '@crm/bus';
import type { CallerContext } from '@crm/grpc';
import { DomainError, type Logger } from '@crm/observability';
import type { FilterRecordKind } from '@crm/vocabulary';
import { exportColumns } from '../domain/export-fields';
import { EXPORT_FORMATS, EXPORT_KINDS, CONTENT_TYPES, newExportId, type ExportFormat, type ExportJobDocument } from '../domain/export-job';
import type { ExportJobRepository } from '../store/export-job-repository';
import { EXPORT_MESSAGE, type ExportPayload } from './export-messages';
import type { RecordsClient } from './ports';
import { readCustomFields } from './custom-field-definitions';

export interface ExportRequest {
  kind: string;
  format: string;
  filter: string;
  search: string;
  ordering: string;
  fields: string[];
}

export interface ExportRequestsDeps {
  repo: ExportJobRepository;
  records: RecordsClient;
  bus: MessageBus;
  logger: Logger;
  now?: () => Date;
}

export class ExportRequests {
  constructor(private readonly deps: ExportRequestsDeps) {}

  async create(caller: CallerContext, request: ExportRequest): Promise<ExportJobDocument> {
    const { repo, records, bus, logger } = this.deps;
    const errors: Record<string, string[]> = {};
    if (!(EXPORT_KINDS as readonly string[]).includes(request.kind)) errors.kind = [`must be one of ${EXPORT_KINDS.join(', ')}.`];
    if (!(EXPORT_FORMATS as readonly string[]).includes(request.format)) errors.format = [`must be one of ${EXPORT_FORMATS.join(', ')}.`];
    if (errors.kind) throw DomainError.validation(errors);
    const kind = request.kind as FilterRecordKind;
    const custom = await readCustomFields(records, kind, caller);
    const columns = exportColumns(
      kind,
      request.fields,
      custom.map((field) => field.key),
    );
    if (columns.errors.length > 0) errors.fields = columns.errors;
    if (Object.keys(errors).length > 0) throw DomainError.validation(errors);
    // The list's refusals (400 {"filter": [...]}, {"ordering": [...]}, a long search) now, not in the job.
    await records.call(
      'QueryRecords',
      { recordType: kind, filter: request.filter, search: request.search, ordering: request.ordering, limit: 1 },
      caller,
    );
    const job: ExportJobDocument & { workspaceId: string } = {
      id: newExportId(),
      workspaceId: caller.workspaceId,
      kind,
      format: request.format as ExportFormat,
      status: 'queued',
      filter: request.filter,
      search: request.search,
      ordering: request.ordering,
      fields: columns.fields,
      actorId: caller.actorId,
      actorKind: caller.actorKind,
      rowCount: 0,
      rowsWritten: 0,
      run: 0,
      chunkCount: 0,
      createdAt: apiTimestamp(this.deps.now?.()),
      startedAt: null,
      finishedAt: null,
      errorMessage: '',
    };
    await repo.insert(job);
    const payload: ExportPayload = { workspaceId: caller.workspaceId, exportId: job.id };
    try {
      await bus.publish(newMessage(EXPORT_MESSAGE, payload, { correlationId: caller.requestId }));
    } catch (err) {
      logger.warn({ err, exportId: job.id }, 'could not queue the export');
      await repo.fail(caller.workspaceId, job.id, 'The export could not be queued; ask again.', job.createdAt);
      return (await repo.get(caller.workspaceId, job.id)) ?? job;
    }
    return job;
  }

  async get(caller: CallerContext, id: string): Promise<ExportJobDocument> {
    const job = await this.deps.repo.get(caller.workspaceId, id);
    if (!job) throw DomainError.notFound();
    return job;
  }

  list(caller: CallerContext, offset: number, limit: number) {
    return this.deps.repo.list(caller.workspaceId, offset, limit);
  }

  /**
   * The file's content type, then its chunks in order, each read when the previous one is taken.
   * 409 before the export is complete; 404 once retention has deleted it.
   */
  async *download(caller: CallerContext, id: string): AsyncGenerator<{ contentType: string } | { data: string }> {
    const job = await this.get(caller, id);
    if (job.status !== 'complete') throw DomainError.conflict(`The export is ${job.status}; download it once it is complete.`);
    yield { contentType: CONTENT_TYPES[job.format] };
    for (let index = 0; index < job.chunkCount; index += 1) {
      const data = await this.deps.repo.chunk(caller.workspaceId, job.id, job.run, index);
      if (data === null) throw DomainError.notFound();
      yield { data };
    }
  }
}
