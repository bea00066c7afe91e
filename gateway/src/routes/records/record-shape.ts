/**
 * How a record message of the records service becomes the public JSON: exactly the spec's field
 * names, the full shape for single-record responses and the list-item shape for lists, with
 * unset (proto3 `optional`) fields and the names of unset links as JSON null. The same field tables give the
 * OpenAPI response schemas, so the document and the responses cannot drift.
 */
import type { JsonSchema } from '../../openapi/operation';
import { renderAnswer, type AnswerTable } from '../field-table';

export type RecordMessage = Record<string, unknown>;

/** A name filled by the service, null when the id it names is null. */
const NAME_OF: Record<string, string> = { accountName: 'accountId', assignedToName: 'assignedTo' };

/** Fields the message carries as JSON text of an object (write-body.ts type `json`): answered as the object, `{}` when unset. */
const JSON_OBJECT_FIELDS = new Set(['customFields']);

function jsonObject(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || text === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A field of a record message as the public JSON says it. */
function readField(message: RecordMessage, field: string): unknown {
  const idField = NAME_OF[field];
  if (JSON_OBJECT_FIELDS.has(field)) return jsonObject(message[field]);
  if (idField && (message[idField] === undefined || message[idField] === null || !message[field])) return null;
  return message[field] ?? null;
}

/**
 * The answer table (field-table.ts) of a record message's fields, each answered under its name as
 * {@link readField} reads it; `listed` names the list item's.
 */
export function recordAnswer(fields: ResponseFields, listed: readonly string[] = []): AnswerTable<RecordMessage> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, schema]) => [
      name,
      { schema, value: (message: RecordMessage) => readField(message, name), ...(listed.includes(name) ? { listed: true } : {}) },
    ]),
  );
}

/** The rows of these names, in this order (a part of a record some answer carries). */
export function pickAnswer<M>(table: AnswerTable<M>, names: readonly string[]): AnswerTable<M> {
  return Object.fromEntries(
    names.map((name) => {
      const row = table[name];
      if (!row) throw new Error(`${name} is no field of the table.`);
      return [name, row];
    }),
  );
}

/** A record message (any of the service's record types) as its public JSON; null when there is none. */
export function renderRecord(
  table: AnswerTable<RecordMessage>,
  record: object | null | undefined,
  which: 'full' | 'listed' = 'full',
): Record<string, unknown> | null {
  return record ? renderAnswer(table, record as RecordMessage, which) : null;
}

/** Field → JSON schema of its value in responses. */
export type ResponseFields = Record<string, JsonSchema>;

export const t = {
  id: (prefix: string): JsonSchema => ({ type: 'string', examples: [`${prefix}01J8Z6K3Q4V5W6X7Y8Z9A0B1C2`] }),
  string: (description?: string): JsonSchema => ({ type: 'string', ...(description ? { description } : {}) }),
  nullableString: (description?: string): JsonSchema => ({ type: ['string', 'null'], ...(description ? { description } : {}) }),
  choice: (values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values] }),
  integer: (description?: string): JsonSchema => ({ type: 'integer', ...(description ? { description } : {}) }),
  number: (description?: string): JsonSchema => ({ type: 'number', ...(description ? { description } : {}) }),
  nullableNumber: (description?: string): JsonSchema => ({ type: ['number', 'null'], ...(description ? { description } : {}) }),
  boolean: (): JsonSchema => ({ type: 'boolean' }),
  strings: (description?: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, ...(description ? { description } : {}) }),
  /** An object whose keys the workspace defines (a record's `customFields`). */
  openObject: (description?: string): JsonSchema => ({
    type: 'object',
    additionalProperties: true,
    ...(description ? { description } : {}),
  }),
  timestamp: (): JsonSchema => ({ type: 'string', format: 'date-time', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$' }),
  nullableTimestamp: (description?: string): JsonSchema => ({
    type: ['string', 'null'],
    format: 'date-time',
    ...(description ? { description } : {}),
  }),
  nullableDate: (description?: string): JsonSchema => ({
    type: ['string', 'null'],
    format: 'date',
    ...(description ? { description } : {}),
  }),
};

export function nullable(schema: JsonSchema): JsonSchema {
  return { oneOf: [schema, { type: 'null' }] };
}

/** A list the spec answers with count and results only (list-query.ts `countedList`). */
export function countedListSchema(item: JsonSchema, description: string): JsonSchema {
  return {
    type: 'object',
    description: `${description} Count and results only (the spec's shape), with \`nextCursor\` to walk on.`,
    required: ['results', 'nextCursor'],
    properties: {
      count: { type: 'integer', description: 'Matches over every page; left out of pages read by `cursor`, which count nothing.' },
      results: { type: 'array', items: item },
      nextCursor: {
        type: ['string', 'null'],
        description: 'Opaque: send it back as `cursor` (with the same filters) for the page after this one; null on the last page.',
      },
    },
    additionalProperties: false,
  };
}

export function pageSchema(item: JsonSchema, description: string, options: { cursor?: boolean } = {}): JsonSchema {
  const cursor = options.cursor === true;
  return {
    type: 'object',
    description,
    required: cursor ? ['next', 'previous', 'nextCursor', 'results'] : ['count', 'next', 'previous', 'results'],
    properties: {
      count: {
        type: 'integer',
        description: cursor
          ? 'Matches over every page; left out of pages read by `cursor`, which count nothing.'
          : 'Matches over every page.',
      },
      next: {
        type: ['string', 'null'],
        format: 'uri',
        description: cursor
          ? 'Absolute URL of the next page (keeps every filter; by cursor on cursor pages), or null.'
          : 'Absolute URL of the next page (keeps every filter), or null.',
      },
      previous: {
        type: ['string', 'null'],
        format: 'uri',
        description: cursor
          ? 'Absolute URL of the previous page, or null (always null on cursor pages).'
          : 'Absolute URL of the previous page, or null.',
      },
      ...(cursor
        ? {
            nextCursor: {
              type: ['string', 'null'],
              description:
                'Opaque: send it back as `cursor` (with the same filters and ordering) for the page after this one, stable while records are added and removed; null on the last page.',
            },
          }
        : {}),
      results: { type: 'array', items: item },
    },
    additionalProperties: false,
  };
}
