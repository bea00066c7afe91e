/**
 * Exports: `POST /api/exports/` starts one (a job of the import service, over the bus), `GET
 * /api/exports/` and `/api/exports/{id}/` read them, `GET /api/exports/{id}/download/` streams the
 * file from the import service's gRPC stream into the response, one chunk in hand at a time.
 */
import { Router, type Request, type Response } from 'express';
import { DomainError, type Logger } from '@crm/observability';
import { GrpcClient, importV1 } from '@crm/grpc';
import { MAX_SEARCH_LENGTH } from '@crm/vocabulary';
import { z } from 'zod';
import { GRPC_DEADLINE_MS } from '../clients/auth-client';
import { openImportClient } from '../clients/import-client';
import { operation, type JsonSchema, type OpenApiOperation, type OpenApiPaths } from '../openapi/operation';
import { callerContext } from '../request-context';
import { listOffset, nextOffsetCursor, paginated, readListQuery } from './records/list-query';
import type { RouteDeps, RouteModule } from './route-module';
import { answerSchema, bodyCheck, bodySchemaOf, renderAnswer, type AnswerTable, type BodyTable } from './field-table';
import { nullIfEmpty, parseBody } from './validate';

type ExportsClient = Pick<GrpcClient<importV1.ImportServiceMethods>, 'call' | 'stream'>;

const KINDS = ['contact', 'lead', 'account', 'opportunity'] as const;
const FORMATS = ['csv', 'jsonl'] as const;

/** Columns: at most this many, each a name of 1 to this many characters. */
const FIELDS_MAX = 200;

const exportFields = {
  kind: { check: z.enum(KINDS), rules: { type: 'string', enum: [...KINDS] }, required: true },
  format: { check: z.enum(FORMATS), rules: { type: 'string', enum: [...FORMATS] }, required: true },
  filter: {
    check: z.record(z.string(), z.unknown()).optional(),
    rules: { type: 'object', description: "The filter language's tree, as POST /api/{kind}/query/ takes it." },
  },
  search: { check: z.string().max(MAX_SEARCH_LENGTH).optional(), rules: { type: 'string', maxLength: MAX_SEARCH_LENGTH } },
  ordering: {
    check: z.string().optional(),
    rules: { type: 'string', description: 'As the query: up to 3 comma-separated fields, `-` for descending.' },
  },
  fields: {
    check: z.array(z.string().min(1).max(FIELDS_MAX)).min(1).max(FIELDS_MAX).optional(),
    rules: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: FIELDS_MAX },
      minItems: 1,
      maxItems: FIELDS_MAX,
      description: 'Columns in order: list item fields or `customFields.<key>`.',
    },
  },
} satisfies BodyTable;

const exportBody = bodyCheck(exportFields);

const timestamp = (nullable: boolean): JsonSchema => ({ type: nullable ? ['string', 'null'] : 'string', format: 'date-time' });

const exportJobAnswer: AnswerTable<importV1.ExportJob> = {
  id: { schema: { type: 'string', examples: ['exp_6f1c2b0e9d8a4c7b9e1f0a2b3c4d5e6f'] }, value: (job) => job.id },
  kind: { schema: { type: 'string', enum: [...KINDS] }, value: (job) => job.kind },
  format: { schema: { type: 'string', enum: [...FORMATS] }, value: (job) => job.format },
  status: { schema: { type: 'string', enum: ['queued', 'processing', 'complete', 'failed'] }, value: (job) => job.status },
  rowCount: {
    schema: {
      type: 'integer',
      description: "The records the file holds: the list's count for the same filter when the job started (0 until then).",
    },
    value: (job) => job.rowCount,
  },
  progressPercent: { schema: { type: 'integer', minimum: 0, maximum: 100 }, value: (job) => job.progressPercent },
  createdAt: { schema: timestamp(false), value: (job) => job.createdAt },
  startedAt: { schema: timestamp(true), value: (job) => nullIfEmpty(job.startedAt) },
  finishedAt: { schema: timestamp(true), value: (job) => nullIfEmpty(job.finishedAt) },
  errorMessage: {
    schema: { type: ['string', 'null'], description: 'Why the export failed; null otherwise.' },
    value: (job) => nullIfEmpty(job.errorMessage),
  },
};

function exportJobBody(job: importV1.ExportJob | null | undefined) {
  if (!job) throw DomainError.notFound();
  return renderAnswer(exportJobAnswer, job);
}

/** Resolves when the response can take more, or is gone. */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

function download(client: ExportsClient, logger: Logger) {
  return async (req: Request, res: Response): Promise<void> => {
    const id = String(req.params.id);
    const parts = client.stream('DownloadExport', { id }, callerContext(res));
    // The first message (the content type) before any header: a 404 or 409 is still an ordinary answer.
    const first = await parts.next();
    if (first.done) throw DomainError.notFound();
    res.status(200);
    res.setHeader('content-type', first.value.contentType);
    res.setHeader(
      'content-disposition',
      `attachment; filename="${id}.${first.value.contentType.startsWith('text/csv') ? 'csv' : 'jsonl'}"`,
    );
    try {
      for await (const part of parts) {
        if (res.destroyed) break;
        if (!res.write(part.data)) await writable(res);
      }
      res.end();
    } catch (err) {
      // The status line is gone: cut the body short, so the client sees it incomplete.
      logger.warn({ err, exportId: id }, 'export download cut short');
      res.destroy();
    } finally {
      await parts.return(undefined);
    }
  };
}

export function exportRoutes(
  deps: RouteDeps,
  client: ExportsClient = openImportClient(deps.config.IMPORT_GRPC_ADDR, deps.internalTls),
): RouteModule {
  const options = { timeoutMs: GRPC_DEADLINE_MS };
  const router = Router();

  router.post('/api/exports', async (req, res) => {
    const body = parseBody(exportBody, req.body ?? {});
    const { job } = await client.call(
      'CreateExport',
      {
        kind: body.kind,
        format: body.format,
        filter: body.filter === undefined ? '' : JSON.stringify(body.filter),
        search: body.search ?? '',
        ordering: body.ordering ?? '',
        fields: body.fields ?? [],
      },
      callerContext(res),
      options,
    );
    res.status(202).json(exportJobBody(job));
  });

  router.get('/api/exports', async (req, res) => {
    const list = readListQuery<never>(req, [], { cursor: true });
    const offset = listOffset(list);
    const answer = await client.call('ListExports', { offset, limit: list.limit }, callerContext(res), options);
    const next = nextOffsetCursor(offset, list.limit, answer.total);
    res.json(paginated(req, deps.config, { ...list, offset }, answer.total, answer.jobs.map(exportJobBody), next));
  });

  router.get('/api/exports/:id', async (req, res) => {
    const { job } = await client.call('GetExport', { id: String(req.params.id) }, callerContext(res), options);
    res.json(exportJobBody(job));
  });

  router.get('/api/exports/:id/download', download(client, deps.logger));

  return { name: 'exports', access: 'authenticated', router, paths: exportPaths() };
}

const exportJobSchema = answerSchema(exportJobAnswer);

const idParameter = { name: 'id', in: 'path', required: true, description: 'The export id (`exp_...`).', schema: { type: 'string' } };

/** The OpenAPI part of {@link exportRoutes}. */
export function exportPaths(): OpenApiPaths {
  return {
    '/api/exports/': {
      post: createExportOperation(),
      get: listExportsOperation(),
    },
    '/api/exports/{id}/': {
      get: operation({
        operationId: 'getExport',
        summary: 'An export, for polling',
        tags: ['exports'],
        authenticated: true,
        parameters: [idParameter],
        responses: { 200: { description: 'The export.', schema: exportJobSchema } },
        errors: [404],
      }),
    },
    '/api/exports/{id}/download/': {
      get: fileResponse(
        operation({
          operationId: 'downloadExport',
          summary: "An export's file, streamed",
          description: '`text/csv` or `application/x-ndjson` (one JSON object per line). Before the export is complete: 409.',
          tags: ['exports'],
          authenticated: true,
          parameters: [idParameter],
          responses: { 200: { description: 'The file.' } },
          errors: [404, 409],
        }),
      ),
    },
  };
}

function createExportOperation(): OpenApiOperation {
  return operation({
    operationId: 'createExport',
    summary: "Export a kind's list as CSV or JSON lines, in the background",
    description:
      "Answers 202 at once; poll the export until `complete`, then download it. The file holds every record matching `filter` and `search` at the moment the job starts, each exactly once whatever is written meanwhile, in `ordering` order (default newest first); `rowCount` is the list's `count` for the same filter at that moment. `fields` defaults to the list item's fields (then every custom field, as `customFields.<key>` columns). CSV: a header line of field names, CRLF line ends, tags joined by commas; cells starting with `=`, `+`, `-`, `@`, tab or CR get a leading `'`. Files are kept 7 days, then the export answers 404. A bad `filter` or `ordering`: 400 as the list's query; an unknown kind, format or field: 422.",
    tags: ['exports'],
    authenticated: true,
    requestBody: bodySchemaOf(exportFields, 'create'),
    responses: { 202: { description: 'The export, queued.', schema: exportJobSchema } },
  });
}

function listExportsOperation(): OpenApiOperation {
  return operation({
    operationId: 'listExports',
    summary: "The workspace's exports, newest first",
    tags: ['exports'],
    authenticated: true,
    parameters: [
      { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
      { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1 } },
      { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } },
    ],
    responses: {
      200: {
        description: 'A page of exports.',
        schema: {
          type: 'object',
          required: ['count', 'next', 'previous', 'results', 'nextCursor'],
          properties: {
            count: { type: 'integer' },
            next: { type: ['string', 'null'] },
            previous: { type: ['string', 'null'] },
            nextCursor: { type: ['string', 'null'] },
            results: { type: 'array', items: exportJobSchema },
          },
        },
      },
    },
  });
}

/** The operation's 200 as the file in either format. */
function fileResponse(op: Record<string, unknown>): Record<string, unknown> {
  const responses = op.responses as Record<string, Record<string, unknown>>;
  const text = { schema: { type: 'string' } };
  return { ...op, responses: { ...responses, 200: { ...responses['200'], content: { 'text/csv': text, 'application/x-ndjson': text } } } };
}
