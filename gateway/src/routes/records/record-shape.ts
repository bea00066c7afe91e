/**
 * How a record message of the records service becomes the public JSON: exactly the spec's field
 * names, the full shape for single-record responses and the list-item shape for lists, with
 * unset (proto3 `optional`) fields and the names of unset links as JSON null. The same field tables give the
 * OpenAPI response schemas, so the document and the responses cannot drift.
 */
import type { JsonSchema } from '../../openapi/operation';

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

/** A record message (any of the service's record types, read by the field table) as its public JSON. */
export function render(record: object | null | undefined, fields: readonly string[]): Record<string, unknown> | null {
  if (!record) return null;
  const message = record as RecordMessage;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const idField = NAME_OF[field];
    if (JSON_OBJECT_FIELDS.has(field)) out[field] = jsonObject(message[field]);
    else if (idField && (message[idField] === undefined || message[idField] === null || !message[field])) out[field] = null;
    else out[field] = message[field] ?? null;
  }
  return out;
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

export function objectSchema(fields: ResponseFields, names: readonly string[], description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: [...names],
    properties: Object.fromEntries(names.map((name) => [name, fields[name]!])),
    additionalProperties: false,
  };
}

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
