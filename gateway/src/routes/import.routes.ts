/**
 * Contact import: the upload is streamed to the import service's upload endpoint (it must not go
 * through the JSON body parser, so app.ts mounts `importUploadProxy` before it), job reads go over gRPC.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ClientRequest } from 'node:http';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { DomainError, type Logger } from '@crm/observability';
import { injectTraceContext } from '@crm/telemetry';
import type { importV1 } from '@crm/grpc';
import { GRPC_DEADLINE_MS } from '../clients/auth-client';
import { openImportClient, proxyTarget, uploadAgent, type ImportClient, type UploadTarget } from '../clients/import-client';
import { discardBodyAfterAnswer } from '../middleware/discard-body';
import { operation, type OpenApiOperation, type OpenApiPaths } from '../openapi/operation';
import { callerOf, callerContext } from '../request-context';
import { lazyRecordsClient, type RecordsClient } from '../clients/records-client';
import { contactImportNowPaths, contactImportNowRouter } from './contact-import-now';
import { DUPLICATE_ITEM, ROW_ERROR_ITEM } from './import-row-schemas';
import { importReportDownload } from './import-report-download';
import type { RouteDeps, RouteModule } from './route-module';
import { nullIfEmpty } from './validate';

export const IMPORT_START_PATH = '/api/crm/contacts/import/start';
/** The spec's 10 MB CSV limit plus room for the form around it; the import service checks the file itself. */
const MAX_UPLOAD_BODY_BYTES = 10 * 1024 * 1024 + 256 * 1024;
/** How much of a body refused from its Content-Length is read and discarded before the connection is cut. */
const DISCARD_BYTES = 64 * 1024 * 1024;
const CALLER_HEADERS = [
  'x-crm-workspace-id',
  'x-crm-actor-id',
  'x-crm-actor-kind',
  'x-crm-request-id',
  'x-crm-plan',
  'x-crm-api-key-id',
  'x-crm-upload-secret',
];

function importJobBody(job: importV1.ImportJob) {
  return {
    uid: job.uid,
    filename: job.filename,
    status: job.status,
    progressPercent: job.progressPercent,
    totalRows: job.totalRows,
    processedRows: job.processedRows,
    successCount: job.successCount,
    errorCount: job.errorCount,
    duplicateCount: job.duplicateCount,
    errors: job.errors.map((e) => ({ row: e.row, message: e.message })),
    duplicates: job.duplicates.map((d) => ({ row: d.row, email: d.email, existingContactId: nullIfEmpty(d.existingContactId) })),
    errorMessage: job.errorMessage,
    sourceName: job.sourceName,
    ignoredColumns: job.ignoredColumns,
    createdAt: job.createdAt,
    startedAt: nullIfEmpty(job.startedAt),
    finishedAt: nullIfEmpty(job.finishedAt),
  };
}

/**
 * `POST /api/crm/contacts/import/start/`, after authentication and the rate limit: checks what can
 * be checked from the headers, then streams the body to the import service with the caller context
 * set from the verified credential (any client-sent x-crm-* header is dropped first).
 */
/** The job list answers the newest jobs, at most this many (the import service keeps its list to them). */
const LAST_JOBS = 50;

/** `limit` of the job list: 1 and up, served as at most LAST_JOBS; anything else is a 400. */
function jobListLimit(value: unknown): number {
  if (value === undefined) return LAST_JOBS;
  if (typeof value !== 'string' || !/^\d{1,10}$/.test(value) || Number(value) < 1)
    throw DomainError.invalid('limit must be a positive integer.');
  return Math.min(Number(value), LAST_JOBS);
}

export function importUploadProxy(logger: Logger, target: UploadTarget): Router {
  const proxy = createProxyMiddleware<Request, Response>({
    target: proxyTarget(target),
    agent: uploadAgent(target),
    changeOrigin: true,
    pathRewrite: () => '/v1/uploads',
    proxyTimeout: 300_000,
    on: {
      proxyReq: (proxyReq: ClientRequest, _req: Request, res: Response) => {
        for (const header of CALLER_HEADERS) proxyReq.removeHeader(header);
        proxyReq.removeHeader('authorization');
        proxyReq.removeHeader('cookie');
        const caller = callerContext(res);
        proxyReq.setHeader('x-crm-workspace-id', caller.workspaceId);
        proxyReq.setHeader('x-crm-actor-id', caller.actorId);
        proxyReq.setHeader('x-crm-actor-kind', caller.actorKind);
        proxyReq.setHeader('x-crm-request-id', caller.requestId);
        if (caller.plan) proxyReq.setHeader('x-crm-plan', caller.plan);
        if (target.secret) proxyReq.setHeader('x-crm-upload-secret', target.secret);
        if (caller.traceparent) proxyReq.setHeader('traceparent', caller.traceparent);
        else {
          // Spans exported: the active context carries the trace.
          const trace: Record<string, string> = {};
          injectTraceContext(trace);
          for (const [header, value] of Object.entries(trace)) proxyReq.setHeader(header, value);
        }
      },
      error: (error, _req, res) => {
        logger.warn({ err: error }, 'import upload proxy failed');
        const response = res as Response;
        if (typeof response.status !== 'function' || response.headersSent) {
          (res as { destroy?: () => void }).destroy?.();
          return;
        }
        response.status(503).json({ detail: 'The import service is unavailable; try again shortly.' });
      },
    },
  });
  const checks: RequestHandler = (req, res, next) => {
    callerOf(res);
    if (!req.is('multipart/form-data')) {
      return next(DomainError.invalid('Send the file as multipart/form-data with a form field named "file".'));
    }
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > MAX_UPLOAD_BODY_BYTES) {
      discardBodyAfterAnswer(req, res, DISCARD_BYTES);
      return next(new DomainError('payload_too_large', 'The file is larger than the 10 MB limit.'));
    }
    // The gateway sends the client its 100 Continue when the proxy starts reading (expect-continue.ts).
    // Forwarded, Expect would make http-proxy skip the proxyReq hook that sets the caller headers.
    delete req.headers.expect;
    next();
  };
  return Router().post(IMPORT_START_PATH, checks, proxy);
}

export function importRoutes(
  deps: RouteDeps,
  client: ImportClient = openImportClient(deps.config.IMPORT_GRPC_ADDR, deps.internalTls),
  records: RecordsClient = lazyRecordsClient(deps.config.RECORDS_GRPC_ADDR, deps.internalTls),
): RouteModule {
  const options = { timeoutMs: GRPC_DEADLINE_MS };
  const router = Router();

  router.get('/api/crm/contacts/import-jobs', async (req, res) => {
    const limit = jobListLimit(req.query.limit);
    const { jobs } = await client.call('ListImportJobs', {}, callerContext(res), options);
    res.json(jobs.slice(0, limit).map(importJobBody));
  });

  router.get('/api/crm/contacts/import-jobs/:job_uid', async (req, res) => {
    const { job } = await client.call('GetImportJob', { uid: String(req.params.job_uid) }, callerContext(res), options);
    if (!job) throw DomainError.notFound();
    res.json(importJobBody(job));
  });

  router.post('/api/crm/contacts/import-jobs/:job_uid/cancel', async (req, res) => {
    const { job } = await client.call('CancelImportJob', { uid: String(req.params.job_uid) }, callerContext(res), options);
    if (!job) throw DomainError.notFound();
    res.json(importJobBody(job));
  });

  router.get('/api/crm/contacts/import-jobs/:job_uid/errors', importReportDownload(client, deps.logger, GRPC_DEADLINE_MS));

  return {
    name: 'import',
    access: 'authenticated',
    router,
    rawBodyRouter: contactImportNowRouter(client, records, {
      total: deps.config.IMPORT_NOW_MAX_IN_FLIGHT,
      perWorkspace: deps.config.IMPORT_NOW_MAX_IN_FLIGHT_PER_WORKSPACE,
    }),
    paths: { ...importPaths(), ...contactImportNowPaths() },
  };
}

const jobUid = { name: 'job_uid', in: 'path', required: true, description: 'The import job uid.', schema: { type: 'string' } };

const importJobProperties = {
  uid: { type: 'string' },
  filename: { type: 'string' },
  status: { type: 'string', enum: ['queued', 'processing', 'complete', 'failed', 'cancelled'] },
  progressPercent: { type: 'integer' },
  totalRows: { type: 'integer' },
  processedRows: { type: 'integer', description: 'successCount + errorCount + duplicateCount' },
  successCount: { type: 'integer', description: 'Contacts created.' },
  errorCount: { type: 'integer', description: 'Every row error; `errors` shows the first ones.' },
  duplicateCount: { type: 'integer', description: 'Every duplicate row; `duplicates` shows the first ones.' },
  errors: {
    type: 'array',
    description:
      'The first row errors in row order: at most 1,000, fewer when long entries would make the answer large (a job answer stays under 100 KB). Empty in the job list. Every row: the errors download.',
    items: ROW_ERROR_ITEM,
  },
  duplicates: {
    type: 'array',
    description: 'The first duplicate rows in row order, under the same limits as `errors`. Empty in the job list.',
    items: DUPLICATE_ITEM,
  },
  errorMessage: { type: 'string' },
  sourceName: { type: 'string' },
  ignoredColumns: {
    type: 'array',
    items: { type: 'string' },
    description: 'Columns that matched no contact field and were not imported.',
  },
  createdAt: { type: 'string', format: 'date-time' },
  startedAt: { type: ['string', 'null'], format: 'date-time' },
  finishedAt: { type: ['string', 'null'], format: 'date-time' },
};

/** Every key importJobBody writes, always. */
const importJobSchema = {
  type: 'object',
  required: Object.keys(importJobProperties),
  properties: importJobProperties,
  additionalProperties: false,
};

/** The OpenAPI part of {@link importRoutes}. */
export function importPaths(): OpenApiPaths {
  return {
    '/api/crm/contacts/import/start/': {
      post: startImportOperation(),
    },
    '/api/crm/contacts/import-jobs/': {
      get: listImportJobsOperation(),
    },
    '/api/crm/contacts/import-jobs/{job_uid}/': {
      get: operation({
        operationId: 'getImportJob',
        summary: 'An import job, for polling (every 1–2 s until complete or failed)',
        tags: ['import'],
        authenticated: true,
        parameters: [jobUid],
        responses: { 200: { description: 'The import job.', schema: importJobSchema } },
        errors: [404],
      }),
    },
    '/api/crm/contacts/import-jobs/{job_uid}/cancel/': {
      post: operation({
        operationId: 'cancelImportJob',
        summary: 'Cancel an import: chunks not yet being imported are not; the job keeps its counts so far',
        description:
          'A queued or processing job becomes `cancelled`. Rows of chunks that were already being imported when the cancel arrived are still counted (their contacts exist), so the counts can still grow for a moment. A job already complete, failed or cancelled: 409.',
        tags: ['import'],
        authenticated: true,
        parameters: [jobUid],
        responses: { 200: { description: 'The job, cancelled.', schema: importJobSchema } },
        errors: [404, 409],
      }),
    },
    '/api/crm/contacts/import-jobs/{job_uid}/errors/': {
      get: csvResponse(
        operation({
          operationId: 'downloadImportJobErrors',
          summary: 'Every row error and duplicate of an import, as CSV',
          description:
            "Streamed, in row order. Header `row,kind,reason` followed by the file's own header cells; then one line per row error (kind `error`, reason the message) and per duplicate (kind `duplicate`, reason naming the existing contact or the earlier row), followed by the row's original cells. Cells beginning with `=`, `+`, `-`, `@`, tab or carriage return are prefixed with `'` so that spreadsheets do not run them. Available while the job runs (the rows counted so far) and after.",
          tags: ['import'],
          authenticated: true,
          parameters: [jobUid],
          responses: { 200: { description: 'The report, `text/csv`.' } },
          errors: [404],
        }),
      ),
    },
  };
}

/** The operation's 200 as `text/csv`. */
function csvResponse(op: Record<string, unknown>): Record<string, unknown> {
  const responses = op.responses as Record<string, Record<string, unknown>>;
  return { ...op, responses: { ...responses, 200: { ...responses['200'], content: { 'text/csv': { schema: { type: 'string' } } } } } };
}

/** POST /api/crm/contacts/import/start/: the operation, with its multipart body. */
function startImportOperation(): OpenApiOperation {
  return {
    ...operation({
      operationId: 'startContactImport',
      summary: 'Start an asynchronous CSV contact import',
      description:
        'multipart/form-data: `file` (required, `.csv`, at most 10 MB, UTF-8 with or without BOM, else read as windows-1252), `source_uid` (optional), `field_mappings` (optional JSON object: CSV header → contact field). Answers 202 at once; poll the job. Not .csv, no file part, two files, an empty or binary file, bad field_mappings or an unknown source_uid: 400. Over 10 MB: 413, at once when Content-Length says so (the rest of the body is read and dropped, so every client can read the answer). `Expect: 100-continue` is honoured: 100 Continue once the request is authenticated, within its rate limit and not too large, else that final status before any of the body is sent. Formula-like cells are stored as plain text; exports must escape them.',
      tags: ['import'],
      authenticated: true,
      responses: {
        202: {
          description: 'The job, queued.',
          schema: {
            type: 'object',
            required: ['uid', 'status', 'filename'],
            properties: { uid: { type: 'string' }, status: { type: 'string', enum: ['queued'] }, filename: { type: 'string' } },
          },
        },
      },
      errors: [400, 413],
    }),
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: { type: 'string', format: 'binary' },
              source_uid: { type: 'string' },
              field_mappings: { type: 'string', description: 'JSON object' },
            },
          },
        },
      },
    },
  };
}

function listImportJobsOperation(): OpenApiOperation {
  return operation({
    operationId: 'listImportJobs',
    summary: 'The last 50 import jobs of the workspace, newest first',
    tags: ['import'],
    authenticated: true,
    parameters: [
      {
        name: 'limit',
        in: 'query',
        required: false,
        description: `How many of the newest jobs (default and at most ${LAST_JOBS}; larger values are served as ${LAST_JOBS}).`,
        schema: { type: 'integer', minimum: 1 },
      },
    ],
    responses: {
      200: {
        description: 'A JSON array of import jobs, each with its counts; `errors` and `duplicates` are empty here (poll the job for them).',
        schema: { type: 'array', items: importJobSchema },
      },
    },
  });
}
