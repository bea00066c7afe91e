/**
 * One table per resource, from which its request check, its answers and its OpenAPI schemas all
 * come, so they cannot drift: a field is added, renamed or constrained in one row.
 *
 * - An answer table names each field of the public JSON with its schema and how its value is read
 *   off the service's message; the full answer has every row, the list item the `listed` ones.
 * - A body table names each field a client may send with the shape the gateway checks (zod, types
 *   only) and the rules the service checks (JSON schema, stated in the document), so a 422 still
 *   lists every failing field at once while the document says what the server accepts.
 */
import { z } from 'zod';
import type { JsonSchema } from '../openapi/operation';

export interface AnswerField<M> {
  schema: JsonSchema;
  /** The value in the answer; `undefined` leaves an `optional` field out. */
  value(message: M): unknown;
  /** In the list item as well as the full answer. */
  listed?: boolean;
  /** Left out of the answer when it has no value, so not `required`. */
  optional?: boolean;
}

export type AnswerTable<M> = Record<string, AnswerField<M>>;

type Which = 'full' | 'listed';
const rows = <M>(table: AnswerTable<M>, which: Which) => Object.entries(table).filter(([, field]) => which === 'full' || field.listed);

/** The public JSON of a message: every row (`full`) or the list item's rows (`listed`), in table order. */
export function renderAnswer<M>(table: AnswerTable<M>, message: M, which: Which = 'full'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of rows(table, which)) {
    const value = field.value(message);
    if (value !== undefined || !field.optional) out[name] = value;
  }
  return out;
}

/** The answer's schema: exactly its fields, every one not `optional` required. */
export function answerSchema<M>(table: AnswerTable<M>, which: Which = 'full', description?: string): JsonSchema {
  const fields = rows(table, which);
  return {
    type: 'object',
    ...(description ? { description } : {}),
    required: fields.filter(([, field]) => !field.optional).map(([name]) => name),
    properties: Object.fromEntries(fields.map(([name, field]) => [name, field.schema])),
    additionalProperties: false,
  };
}

export interface BodyField {
  /** What the gateway checks before the call: the JSON type (the service checks the rest). */
  check: z.ZodType;
  /** What the service accepts, for the document: type, null when accepted, limits, choices. */
  rules: JsonSchema;
  /** Required on create (the service answers 422 "This field is required." without it). */
  required?: boolean;
}

export type BodyTable = Record<string, BodyField>;

/** The body check: these fields and no others ("Unknown field."). */
export function bodyCheck<T extends BodyTable>(table: T): z.ZodObject<{ [K in keyof T]: T[K]['check'] }, z.core.$strict> {
  return z.strictObject(
    Object.fromEntries(Object.entries(table).map(([name, field]) => [name, field.check])) as {
      [K in keyof T]: T[K]['check'];
    },
  );
}

/**
 * The body's schema in the document. `create`: the required fields are listed. `update`: any
 * subset, and `readOnly` names fields of the answer a client may send back (ignored, not refused).
 */
export function bodySchemaOf(
  table: BodyTable,
  mode: 'create' | 'update',
  options: { readOnly?: readonly string[]; description?: string } = {},
): JsonSchema {
  const required = Object.entries(table)
    .filter(([, field]) => field.required)
    .map(([name]) => name);
  return {
    type: 'object',
    ...(options.description ? { description: options.description } : {}),
    ...(mode === 'create' && required.length > 0 ? { required } : {}),
    properties: {
      ...Object.fromEntries(Object.entries(table).map(([name, field]) => [name, field.rules])),
      ...Object.fromEntries(
        (options.readOnly ?? []).map((name) => [name, { readOnly: true, description: 'Read-only; ignored when sent.' }]),
      ),
    },
    additionalProperties: false,
  };
}
