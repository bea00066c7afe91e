import { z } from 'zod';
import { DomainError, type FieldErrors } from '@crm/observability';
import { characterCount } from '@crm/vocabulary';

const NON_FIELD = 'nonFieldErrors';

function messageFor(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'This field is required.';
  if (issue.code === 'too_small' && issue.origin === 'string' && issue.minimum === 1) return 'This field may not be blank.';
  if (issue.code === 'invalid_format' && issue.format === 'email') return 'Enter a valid email address.';
  return undefined;
}

/**
 * Checks a request body's shape before any gRPC call: every failing field is reported at once as
 * `422 {field: [messages]}`, and unknown fields are refused by name.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body, { error: messageFor });
  if (result.success) return result.data;
  const fields: FieldErrors = {};
  const add = (field: string, message: string) => (fields[field] ??= []).push(message);
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) add([...issue.path, key].join('.'), 'Unknown field.');
    } else {
      add(issue.path.length > 0 ? issue.path.map(String).join('.') : NON_FIELD, issue.message);
    }
  }
  throw DomainError.validation(fields);
}

export interface TextLimits {
  max: number;
  min?: number;
  /** Measures and passes on the trimmed text. */
  trim?: boolean;
  /** At least one character; with `trim`, white space alone is blank too. */
  notBlank?: boolean;
}

/** The fewest characters the limits allow: `min`, else 1 when `notBlank`, else 0. */
export function minLengthOf(limits: TextLimits): number {
  return limits.min ?? (limits.notBlank ? 1 : 0);
}

/**
 * Text of `min` to `max` characters, counted as JSON Schema counts them (code points, so an emoji is
 * one character, as the services count it too). Its document keywords come from the same limits in
 * field-table.ts's `textField`.
 */
export function boundedText(limits: TextLimits) {
  const { max } = limits;
  const min = minLengthOf(limits);
  const text = limits.trim ? z.string().trim() : z.string();
  return text
    .refine((value) => characterCount(value) >= min, {
      message: min === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${min} characters.`,
      abort: true,
    })
    .refine((value) => characterCount(value) <= max, `Ensure this field has no more than ${max} characters.`);
}

/** Proto strings are '' when unset; the API says null. */
export function nullIfEmpty(value: string | undefined | null): string | null {
  return value ? value : null;
}

const ID = /^[A-Za-z0-9_-]{1,100}$/;

/** A path id that can't be one of ours is simply not found. */
export function pathId(value: unknown): string {
  if (typeof value !== 'string' || !ID.test(value)) throw DomainError.notFound();
  return value;
}
