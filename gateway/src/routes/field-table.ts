/**
 * One table per resource, from which its request check, its answers and its OpenAPI schemas all
 * come, so they cannot drift: a field is added, renamed or constrained in one row.
 *
 * - An answer table names each field of the public JSON with its schema and how its value is read
 *   off the service's message; the full answer has every row, the list item the `listed` ones.
 * - A body table names each field a client may send with the shape the gateway checks (zod, types
 *   only, or the whole rule where the service could not name every failing field) and the rules the
 *   service checks (JSON schema, stated in the document), so a 422 still lists every failing field
 *   at once while the document says what the server accepts. `textField`, `tokenField` and
 *   `emailField` make both halves of a row from one set of limits.
 */
import { z } from 'zod';
import type { JsonSchema } from '../openapi/operation';
import { boundedText, minLengthOf, type TextLimits } from './validate';

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

export interface BodyField<C extends z.ZodType = z.ZodType> {
  /**
   * What the gateway checks before the call: at least the JSON type (the service checks the rest);
   * where a service's reply could not name every failing field, its rules as well.
   */
  check: C;
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

/** The same rows, none of them required: the body of a partial update. */
export function partialTable<T extends BodyTable>(table: T): { [K in keyof T]: BodyField<z.ZodOptional<T[K]['check']>> } {
  return Object.fromEntries(
    Object.entries(table).map(([name, field]) => [name, { check: field.check.optional(), rules: field.rules }]),
  ) as { [K in keyof T]: BodyField<z.ZodOptional<T[K]['check']>> };
}

/** The answer's fields no body row writes: a client may send them back, and they are ignored (`readOnly` in the document). */
export function readOnlyFields<M>(answer: AnswerTable<M>, body: BodyTable): string[] {
  return Object.keys(answer).filter((name) => !(name in body));
}

/** The body without the answer's fields a client may send back (`readOnly` in the document), before its check. */
export function withoutReadOnly(body: unknown, readOnly: readonly string[]): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  for (const field of readOnly) delete copy[field];
  return copy;
}

/**
 * A text row checked by the gateway with its own messages ({@link boundedText}: code points, as
 * JSON Schema counts), its document keywords from the same limits: `notBlank` is `pattern: \\S`.
 */
export function textField(
  limits: TextLimits,
  row: { required?: boolean; description?: string } = {},
): BodyField<ReturnType<typeof boundedText>> {
  const min = minLengthOf(limits);
  return {
    check: boundedText(limits),
    rules: {
      type: 'string',
      ...(min > 0 ? { minLength: min } : {}),
      maxLength: limits.max,
      ...(limits.notBlank ? { pattern: '\\S' } : {}),
      ...(row.description ? { description: row.description } : {}),
    },
    ...(row.required ? { required: true } : {}),
  };
}

/** An opaque string of 1 to `max` UTF-16 units (a token, a password to compare), checked by the gateway as zod words it. */
export function tokenField(max: number, options: { trim?: boolean } = {}): BodyField<z.ZodString> {
  return {
    check: (options.trim ? z.string().trim() : z.string()).min(1).max(max),
    rules: { type: 'string', minLength: 1, maxLength: max },
    required: true,
  };
}

/** An email address as zod checks it ("Enter a valid email address."), its pattern stated in the document. */
export function emailField(max: number): BodyField<z.ZodEmail> {
  return {
    check: z.email().max(max),
    rules: { type: 'string', maxLength: max, format: 'email', pattern: z.regexes.email.source },
    required: true,
  };
}
