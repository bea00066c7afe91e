/**
 * POST /api/{contacts,leads,accounts,opportunities}/batch/: up to 1,000 creates, updates or
 * upserts in one request. Each record is translated as a single create or update body is
 * (write-body.ts); the operation, matchOn and the record count are judged by the records service
 * (domain/batch-request.ts there), which answers per-record results. The body may be up to
 * BATCH_LIMITS.maxBodyBytes (app.ts parses these paths with that limit).
 */
import type { MessageInput, recordsV1 } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import { BATCH_LIMITS, BATCH_MATCH_FIELDS, BATCH_OPERATIONS, BATCH_RESULT_STATUSES, EMAIL_MATCH_KINDS } from '@crm/vocabulary';
import type { Router } from 'express';
import { OWN_422_RESPONSES } from '../../openapi/idempotency-key';
import { operation, RATE_LIMIT_HEADERS, ref, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import type { RecordsCall } from './records-call';
import type { RecordKind } from './record-kind';
import { translateWrite } from './write-body';

/** A batch of 1,000 records is one call: far longer than one record's deadline, and a lost race re-reads it. */
export const BATCH_DEADLINE_MS = 60_000;

const BODY_FIELDS = ['operation', 'matchOn', 'records', 'atomic'] as const;

/** The paths whose JSON bodies may be up to BATCH_LIMITS.maxBodyBytes. */
export const BATCH_PATHS = ['contacts', 'leads', 'accounts', 'opportunities'].map((plural) => `/api/${plural}/batch`);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body's own fields, typed; a wrong type or an unknown field is a 422 on it (the service judges the values). */
function readBody(body: Record<string, unknown>): { operation: string; matchOn: string; atomic: boolean; records: unknown[] } {
  const errors: Record<string, string[]> = {};
  for (const key of Object.keys(body)) if (!(BODY_FIELDS as readonly string[]).includes(key)) errors[key] = ['Unknown field.'];
  const text = (name: 'operation' | 'matchOn') => {
    const value = body[name];
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return value;
    errors[name] = ['Not a valid string.'];
    return '';
  };
  const operation = text('operation');
  const matchOn = text('matchOn');
  if (body.atomic !== undefined && body.atomic !== null && typeof body.atomic !== 'boolean') errors.atomic = ['Must be a valid boolean.'];
  if (body.records === undefined || body.records === null) errors.records = ['This field is required.'];
  else if (!Array.isArray(body.records)) errors.records = ['Expected a list of items.'];
  if (Object.keys(errors).length > 0) throw DomainError.validation(errors);
  return { operation, matchOn, atomic: body.atomic === true, records: body.records as unknown[] };
}

function recordMessage(kind: RecordKind<string>, record: unknown): MessageInput<recordsV1.BatchRecord> {
  if (!isPlainObject(record)) {
    return { id: '', fieldMask: { paths: [] }, invalidFields: [{ field: 'nonFieldErrors', messages: ['Expected an object.'] }] };
  }
  const write = translateWrite(record, kind.write);
  const id = typeof record.id === 'string' ? record.id : '';
  return { [kind.singular]: write.message, fieldMask: write.mask, invalidFields: write.invalid, id };
}

function answerOf(response: recordsV1.BatchWriteRecordsResponse) {
  const counts = { created: 0, updated: 0, unchanged: 0, error: 0, ...(response.rolledBack ? { skipped: 0 } : {}) } as Record<
    string,
    number
  >;
  const results = response.results.map((r) => {
    counts[r.status] = (counts[r.status] ?? 0) + 1;
    return {
      index: r.index,
      status: r.status,
      id: r.id || null,
      errors: r.status === 'error' ? Object.fromEntries(r.errors.map((e) => [e.field, e.messages])) : null,
    };
  });
  return { results, counts };
}

/** Registers POST {kind}/batch on `router`. */
export function batchRoute(kind: RecordKind<string>, router: Router, call: RecordsCall): void {
  router.post(`${kind.path}/batch`, async (req, res) => {
    const body = readBody((req.body ?? {}) as Record<string, unknown>);
    const response = await call(
      'BatchWriteRecords',
      {
        recordType: kind.singular,
        operation: body.operation,
        matchOn: body.matchOn,
        atomic: body.atomic,
        records: body.records.map((record) => recordMessage(kind, record)),
      },
      res,
      BATCH_DEADLINE_MS,
    );
    res.status(response.rolledBack ? 422 : 200).json(answerOf(response));
  });
}

/** The OpenAPI part of {@link batchRoute}. */
export function batchPaths(kind: RecordKind<string>): OpenApiPaths {
  return { [`${kind.path}/batch/`]: { post: batchOperation(kind) } };
}

const countsSchema: JsonSchema = {
  type: 'object',
  required: ['created', 'updated', 'unchanged', 'error'],
  properties: Object.fromEntries(BATCH_RESULT_STATUSES.map((status) => [status, { type: 'integer', minimum: 0 }])),
  additionalProperties: false,
  description: 'Records by status; `skipped` only on an atomic batch that wrote nothing.',
};

function resultSchema(kind: RecordKind<string>): JsonSchema {
  return {
    type: 'object',
    required: ['results', 'counts'],
    properties: {
      results: {
        type: 'array',
        description: 'One per record, in the order sent.',
        items: {
          type: 'object',
          required: ['index', 'status', 'id', 'errors'],
          properties: {
            index: { type: 'integer', minimum: 0 },
            status: { type: 'string', enum: [...BATCH_RESULT_STATUSES] },
            id: {
              type: ['string', 'null'],
              description: `The ${kind.singular}'s id (\`${kind.idPrefix}...\`); null on error and on a skipped create.`,
            },
            errors: {
              oneOf: [{ type: 'null' }, ref('ValidationError')],
              description: 'On error: the 422 body a single write of this record would have had.',
            },
          },
          additionalProperties: false,
        },
      },
      counts: countsSchema,
    },
    additionalProperties: false,
  };
}

function batchOperation(kind: RecordKind<string>) {
  const matchOn = [
    ...BATCH_MATCH_FIELDS.filter((f) => f !== 'email' || (EMAIL_MATCH_KINDS as readonly string[]).includes(kind.singular)),
    'customFields.<unique key>',
  ];
  const requestBody: JsonSchema = {
    type: 'object',
    required: ['operation', 'records'],
    properties: {
      operation: { type: 'string', enum: [...BATCH_OPERATIONS] },
      matchOn: {
        type: 'string',
        description: `What a record is found by: ${matchOn.map((m) => `\`${m}\``).join(', ')}. \`update\` matches on \`id\` unless this says otherwise; \`upsert\` requires it; \`create\` ignores it.`,
      },
      records: {
        type: 'array',
        minItems: 1,
        maxItems: BATCH_LIMITS.maxRecords,
        description: `1 to ${BATCH_LIMITS.maxRecords.toLocaleString('en-US')} bodies, each as POST (create) or PATCH (update) ${kind.path}/ takes it, plus \`id\` when matching on id.`,
        // Any JSON value: a record that is not an object is that record's error, not the request's.
        items: {},
      },
      atomic: {
        type: 'boolean',
        default: false,
        description: 'One error writes nothing: the answer is 422 with the same body, and `skipped` for what would have been written.',
      },
    },
    additionalProperties: false,
  };
  const op = operation({
    operationId: `batch${kind.pluralName}`,
    summary: `Create, update or upsert ${kind.plural} in a batch`,
    description:
      `Each record goes through the same checks, events, webhooks and automations as a single write; an update that changes nothing is \`unchanged\` and emits nothing. ` +
      'Two records of one batch with the same match value: the second is an error. Racing batches on one match value make one record. ' +
      `A bad request as a whole (no records, over ${BATCH_LIMITS.maxRecords.toLocaleString('en-US')}, an unknown \`operation\` or \`matchOn\`, \`email\` for a kind without one) is a 422 keyed on that field; a body over 10 MB is a 413. ` +
      'Counts as one request against the rate limit.',
    tags: [kind.tag],
    authenticated: true,
    requestBody,
    responses: { 200: { description: 'Per-record results in the order sent, and counts.', schema: resultSchema(kind) } },
  });
  const own422 = {
    description:
      'The request as a whole is refused (keyed on the field), or an atomic batch had an error and wrote nothing (the results, with `skipped`).',
    headers: RATE_LIMIT_HEADERS,
    content: { 'application/json': { schema: { oneOf: [resultSchema(kind), ref('ValidationError'), ref('Error')] } } },
  };
  OWN_422_RESPONSES.add(own422);
  (op.responses as Record<string, unknown>)['422'] = own422;
  return op;
}
