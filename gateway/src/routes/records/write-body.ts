/**
 * A JSON write body → the records service's write request: the typed message (its fields proto3
 * `optional`, null left unset), the field mask of every field the client sent, null or not
 * (`field_mask` / `update_mask`), and what cannot be put in the typed message at all
 * (`invalid_fields`: an unknown field, a value of the wrong JSON type). The service checks values and merges these, so one 422 lists every
 * failing field. Read-only fields of the representation are dropped without a word, so a client
 * may send back what it read.
 */
import { fieldMask, type recordsV1 } from '@crm/grpc';
import type { JsonSchema } from '../../openapi/operation';

/** `json`: a JSON object the message carries as JSON text (a record's `customFields`); the service reads its keys. */
export type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'strings' | 'address' | 'json';

export interface WritableField {
  type: FieldType;
  description?: string;
  /** Allowed values, for the OpenAPI document (the service checks them). */
  choices?: readonly string[];
  format?: 'email' | 'uri' | 'date';
  /**
   * JSON null is accepted (clears the value). Without it the document still says so where the
   * records service reads null as empty: optional free text, URLs, lists and addresses.
   */
  nullable?: boolean;
  /** The service's limits, stated as schema keywords (text is measured after trimming). */
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  /** For `strings`: the longest item. */
  itemMaxLength?: number;
}

export interface WriteShape {
  fields: Record<string, WritableField>;
  readOnly: readonly string[];
  /** Required on create, for the OpenAPI document (the service enforces them). */
  required: readonly string[];
  /** On create, at least one of these must be given, not blank (contacts' and leads' names). */
  oneOfRequired?: readonly string[];
}

/** `T`: the message type the shape's fields make (a plain object where the caller is generic over kinds). */
export interface TranslatedWrite<T extends object = Record<string, unknown>> {
  message: T;
  /** The fields sent with a value, and (`nullMeans: 'clear'`) those sent as null, left unset in `message`. */
  mask: recordsV1.FieldMask;
  invalid: recordsV1.FieldError[];
}

/** The messages the service uses for the same problems, so a 422 reads the same whoever found it. */
const TYPE_MESSAGE: Record<FieldType, string> = {
  string: 'Not a valid string.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
  strings: 'Expected a list of items.',
  address: 'Expected an object.',
  json: 'Expected an object.',
};
const UNKNOWN = 'Unknown field.';
const INT32_MAX = 2_147_483_647;
const ADDRESS_PARTS = ['street', 'city', 'state', 'postalCode', 'country'] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value as the message carries it, or the messages saying why it can't be. */
function translate(type: FieldType, value: unknown): { value: unknown } | { problems: string[] } {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? { value } : { problems: [TYPE_MESSAGE.string] };
    case 'integer':
      // Beyond int32 it could not travel; the service's own range is far narrower anyway.
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) <= INT32_MAX
        ? { value }
        : { problems: [TYPE_MESSAGE.integer] };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { value } : { problems: [TYPE_MESSAGE.number] };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { problems: [TYPE_MESSAGE.boolean] };
    case 'strings':
      if (!Array.isArray(value)) return { problems: [TYPE_MESSAGE.strings] };
      return value.every((item) => typeof item === 'string') ? { value: [...value] } : { problems: [TYPE_MESSAGE.string] };
    case 'address': {
      if (!isPlainObject(value)) return { problems: [TYPE_MESSAGE.address] };
      const problems: string[] = [];
      const address: Record<string, string> = {};
      for (const [key, part] of Object.entries(value)) {
        if (!(ADDRESS_PARTS as readonly string[]).includes(key)) problems.push(`${key}: ${UNKNOWN}`);
        else if (part !== null && typeof part !== 'string') problems.push(`${key}: ${TYPE_MESSAGE.string}`);
      }
      if (problems.length > 0) return { problems };
      for (const key of ADDRESS_PARTS) address[key] = typeof value[key] === 'string' ? (value[key] as string) : '';
      return { value: address };
    }
    case 'json':
      // Its keys and values are the service's to judge (422 keyed `<field>.<key>`); only its shape is read here.
      return isPlainObject(value) ? { value: JSON.stringify(value) } : { problems: [TYPE_MESSAGE.json] };
  }
}

/**
 * Reads a JSON object body against a kind's writable fields. `nullMeans`: `clear` for record
 * writes (a null field is in the mask and unset in the message; the service decides whether the
 * field may be null), `absent`
 * for option bodies such as conversion (null is the same as leaving the field out).
 */
export function translateWrite<T extends object = Record<string, unknown>>(
  body: Record<string, unknown>,
  shape: WriteShape,
  nullMeans: 'clear' | 'absent' = 'clear',
): TranslatedWrite<T> {
  const message: Record<string, unknown> = {};
  const sent: string[] = [];
  const invalid: recordsV1.FieldError[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (shape.readOnly.includes(key)) continue;
    const field = Object.prototype.hasOwnProperty.call(shape.fields, key) ? shape.fields[key] : undefined;
    if (!field) {
      invalid.push({ field: key, messages: [UNKNOWN] });
      continue;
    }
    if (value === null) {
      if (nullMeans === 'clear') sent.push(key);
      continue;
    }
    const translated = translate(field.type, value);
    if ('problems' in translated) {
      invalid.push({ field: key, messages: translated.problems });
      continue;
    }
    message[key] = translated.value;
    sent.push(key);
  }
  // The shape's fields are the message's (its table is written from the proto message).
  return { message: message as T, mask: fieldMask(sent), invalid };
}

/** Whether the records service accepts null for the field: its flag, or null read as empty (field-rules.ts). */
function acceptsNull(field: WritableField, required: boolean): boolean {
  if (field.nullable) return true;
  if (required) return false;
  if (field.type === 'strings' || field.type === 'address' || field.type === 'json') return true;
  return field.type === 'string' && !field.choices && (field.format === undefined || field.format === 'uri');
}

/** Not blank: at least one character that is not white space (the service trims, then refuses empty text). */
const NOT_BLANK = '\\S';

function fieldSchema(field: WritableField, required: boolean, mode: 'create' | 'update'): JsonSchema {
  // A field required on create needs a value there, even one that update may clear (an opportunity's account).
  const nullable = !(required && mode === 'create') && acceptsNull(field, required);
  const base: JsonSchema = (() => {
    switch (field.type) {
      case 'strings':
        return {
          type: 'array',
          items: { type: 'string', ...(field.itemMaxLength !== undefined ? { maxLength: field.itemMaxLength } : {}) },
          ...(field.maxItems !== undefined ? { maxItems: field.maxItems } : {}),
        };
      case 'address':
        return {
          type: 'object',
          properties: Object.fromEntries(ADDRESS_PARTS.map((part) => [part, { type: ['string', 'null'] }])),
          additionalProperties: false,
        };
      case 'json':
        return { type: 'object', additionalProperties: true };
      default:
        return { type: field.type };
    }
  })();
  if (field.choices) base.enum = [...field.choices, ...(nullable ? [null] : [])];
  if (field.format) base.format = field.format;
  if (field.maxLength !== undefined) base.maxLength = field.maxLength;
  if (required && field.type === 'string' && !field.choices) {
    base.minLength = 1;
    base.pattern = NOT_BLANK;
  }
  if (field.minimum !== undefined) base.minimum = field.minimum;
  if (field.maximum !== undefined) base.maximum = field.maximum;
  if (nullable) base.type = [base.type, 'null'];
  if (field.description) base.description = field.description;
  return base;
}

/** The request body schema of a create (`required` applies) or an update (any subset). */
export function writeSchema(shape: WriteShape, mode: 'create' | 'update', description?: string): JsonSchema {
  return {
    type: 'object',
    ...(description ? { description } : {}),
    properties: {
      ...Object.fromEntries(
        Object.entries(shape.fields).map(([name, field]) => [name, fieldSchema(field, shape.required.includes(name), mode)]),
      ),
      // What a client read may be sent back: these are ignored, never refused.
      ...Object.fromEntries(shape.readOnly.map((name) => [name, { readOnly: true, description: 'Read-only; ignored when sent.' }])),
    },
    ...(mode === 'create' && shape.required.length > 0 ? { required: [...shape.required] } : {}),
    ...(mode === 'create' && shape.oneOfRequired
      ? { anyOf: shape.oneOfRequired.map((name) => ({ required: [name], properties: { [name]: { type: 'string', pattern: NOT_BLANK } } })) }
      : {}),
    additionalProperties: false,
  };
}
