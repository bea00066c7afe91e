/**
 * The field checks every record kind shares: one table per kind says what each writable field
 * accepts, and `checkFields` reads a request body against it, collecting every failing field at
 * once (the 422 body). Pure: references to other records arrive as sets of known ids.
 */
import { FieldErrorList } from '@crm/observability';
import { FIELD_LIMITS, isEmail, characterCount, type CustomFieldDefinition, type CustomFieldKind } from '@crm/vocabulary';
import { checkCustomFields } from './custom-field-values';
import { isHttpUrl, MESSAGES } from './field-messages';

export { isHttpUrl, MESSAGES };
import { isCalendarDate } from './clock';

export type FieldRule =
  | { kind: 'text'; max: number; required?: boolean; nullable?: boolean }
  | { kind: 'email'; required?: boolean }
  | { kind: 'choice'; values: readonly string[] }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'number'; min: number; nullable?: boolean }
  | { kind: 'boolean' }
  | { kind: 'tags' }
  | { kind: 'url' }
  | { kind: 'date'; nullable?: boolean }
  | { kind: 'address' }
  /** An id of a record that must exist in the workspace; null unlinks. */
  | { kind: 'reference'; target: 'account' | 'contact' | 'user'; nullable?: boolean }
  | { kind: 'references'; target: 'contact' }
  /** A client's own id: 1 to 255 characters (trimmed), null clears; unique per workspace and kind (the store's index). */
  | { kind: 'externalId'; nullable: true }
  /** The workspace's custom fields of the kind (custom-field-values.ts), checked against `KnownReferences.customFields`. */
  | { kind: 'customFields'; recordKind: CustomFieldKind };

export type FieldTable = Record<string, FieldRule>;

/** The limits decided where the spec is silent (libs/vocabulary; stated in the proto and the OpenAPI document). */
export const LIMITS = FIELD_LIMITS;

/** Ids referenced by a body that exist in the caller's workspace (looked up before the check). */
export interface KnownReferences {
  account: ReadonlySet<string>;
  contact: ReadonlySet<string>;
  user: ReadonlySet<string>;
  /** The kind's custom field definitions, when its table has custom fields. */
  customFields: readonly CustomFieldDefinition[];
}

export const NO_REFERENCES: KnownReferences = { account: new Set(), contact: new Set(), user: new Set(), customFields: [] };

/** A body to check: camelCase keys; null means the client sent JSON null. */
export type Body = Record<string, unknown>;

export { FieldErrorList };

const ADDRESS_FIELDS = ['street', 'city', 'state', 'postalCode', 'country'] as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `body` against `table`. Keys in `readOnly` are dropped silently (a client may send back
 * what it read); other keys outside the table are "Unknown field.". Returns the normalised values
 * of the fields that passed; every problem lands in `errors`.
 */
export function checkFields(
  body: Body,
  table: FieldTable,
  readOnly: readonly string[],
  references: KnownReferences,
  errors: FieldErrorList,
  mode: 'create' | 'update',
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (readOnly.includes(field)) continue;
    const rule = Object.prototype.hasOwnProperty.call(table, field) ? table[field] : undefined;
    if (!rule) {
      errors.add(field, MESSAGES.unknown);
      continue;
    }
    if (rule.kind === 'customFields') {
      const patch = checkCustomFields(value, references.customFields, mode, errors);
      if (patch) values[field] = patch;
      continue;
    }
    const checked = checkValue(field, value, rule, references, errors);
    if (checked !== INVALID) values[field] = checked;
  }
  if (mode === 'create') {
    // Required custom fields are missing too when the body has no customFields at all.
    if (table.customFields && !('customFields' in body)) checkCustomFields(undefined, references.customFields, mode, errors);
    for (const [field, rule] of Object.entries(table)) {
      const required = (rule.kind === 'text' || rule.kind === 'email') && rule.required === true;
      // A field already refused (e.g. sent with the wrong JSON type, reported by the gateway) is not also "missing".
      if (required && !(field in body) && !errors.errors[field]) errors.add(field, MESSAGES.required);
    }
  }
  return values;
}

const INVALID = Symbol('invalid');

type CheckedRule = Exclude<FieldRule, { kind: 'customFields' }>;

/** What a value check has besides the value and its rule: `fail` records the message and answers INVALID. */
interface CheckContext {
  field: string;
  references: KnownReferences;
  errors: FieldErrorList;
  fail: (message: string) => typeof INVALID;
}

/** A present (non-null) value of one kind of field: the value to store, or INVALID with the errors added. */
type ValueCheck<K extends CheckedRule['kind']> = (
  value: unknown,
  rule: Extract<CheckedRule, { kind: K }>,
  context: CheckContext,
) => unknown;

const VALUE_CHECKS: { [K in CheckedRule['kind']]: ValueCheck<K> } = {
  externalId: (value, _rule, { fail }) => {
    if (typeof value !== 'string') return fail(MESSAGES.string);
    const text = value.trim();
    if (text.length === 0) return fail(MESSAGES.blank);
    if (text.length > LIMITS.externalId) return fail(MESSAGES.maxLength(LIMITS.externalId));
    return text;
  },
  text: (value, rule, { fail }) => {
    if (typeof value !== 'string') return fail(MESSAGES.string);
    const text = value.trim();
    if (rule.required && text.length === 0) return fail(MESSAGES.blank);
    if (characterCount(text) > rule.max) return fail(MESSAGES.maxLength(rule.max));
    return text;
  },
  email: (value, rule, { fail }) => {
    if (typeof value !== 'string') return fail(MESSAGES.string);
    const email = value.trim();
    if (email.length === 0) return rule.required ? fail(MESSAGES.blank) : '';
    if (!isEmail(email)) return fail(MESSAGES.email);
    return email;
  },
  choice: (value, rule, { fail }) => {
    if (typeof value !== 'string' || !rule.values.includes(value))
      return fail(MESSAGES.choice(typeof value === 'string' ? value : JSON.stringify(value)));
    return value;
  },
  integer: (value, rule, { fail }) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) return fail(MESSAGES.integer);
    if (value < rule.min) return fail(MESSAGES.min(rule.min));
    if (value > rule.max) return fail(MESSAGES.max(rule.max));
    return value;
  },
  number: (value, rule, { fail }) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return fail(MESSAGES.number);
    if (value < rule.min) return fail(MESSAGES.min(rule.min));
    return value;
  },
  boolean: (value, _rule, { fail }) => (typeof value === 'boolean' ? value : fail(MESSAGES.boolean)),
  tags: (value, _rule, { fail }) => {
    if (!Array.isArray(value)) return fail(MESSAGES.list);
    if (value.some((tag) => typeof tag !== 'string')) return fail(MESSAGES.string);
    const tags = [...new Set((value as string[]).map((tag) => tag.trim()).filter((tag) => tag.length > 0))];
    if (tags.length > LIMITS.tagCount) return fail(MESSAGES.tagCount(LIMITS.tagCount));
    if (tags.some((tag) => characterCount(tag) > LIMITS.tagLength)) return fail(MESSAGES.tagLength(LIMITS.tagLength));
    return tags;
  },
  url: (value, _rule, { fail }) => {
    if (typeof value !== 'string') return fail(MESSAGES.string);
    const url = value.trim();
    if (url.length === 0) return '';
    if (!isHttpUrl(url)) return fail(MESSAGES.url);
    return url;
  },
  date: (value, _rule, { fail }) => (typeof value === 'string' && isCalendarDate(value) ? value : fail(MESSAGES.date)),
  address: (value, _rule, { field, errors, fail }) => {
    if (!isPlainObject(value)) return fail(MESSAGES.object);
    let ok = true;
    for (const [key, part] of Object.entries(value)) {
      if (!(ADDRESS_FIELDS as readonly string[]).includes(key)) {
        errors.add(field, `${key}: ${MESSAGES.unknown}`);
        ok = false;
      } else if (part !== null && typeof part !== 'string') {
        errors.add(field, `${key}: ${MESSAGES.string}`);
        ok = false;
      } else if (typeof part === 'string' && characterCount(part) > LIMITS.shortText) {
        errors.add(field, `${key}: ${MESSAGES.maxLength(LIMITS.shortText)}`);
        ok = false;
      }
    }
    if (!ok) return INVALID;
    const address: Record<string, string> = {};
    for (const key of ADDRESS_FIELDS) address[key] = typeof value[key] === 'string' ? (value[key] as string).trim() : '';
    return address;
  },
  reference: (value, rule, { references, fail }) => {
    if (typeof value !== 'string') return fail(MESSAGES.string);
    if (value.length === 0) return rule.nullable ? null : fail(MESSAGES.blank);
    if (!references[rule.target].has(value)) return fail(MESSAGES.missingReference(value));
    return value;
  },
  references: (value, rule, { field, references, errors, fail }) => {
    if (!Array.isArray(value)) return fail(MESSAGES.list);
    if (value.some((id) => typeof id !== 'string')) return fail(MESSAGES.string);
    const ids = [...new Set(value as string[])];
    const missing = ids.filter((id) => !references[rule.target].has(id));
    if (missing.length > 0) {
      for (const id of missing) errors.add(field, MESSAGES.missingReference(id));
      return INVALID;
    }
    return ids;
  },
};

function checkValue(field: string, value: unknown, rule: CheckedRule, references: KnownReferences, errors: FieldErrorList): unknown {
  const fail = (message: string): typeof INVALID => {
    errors.add(field, message);
    return INVALID;
  };
  if (value === null || value === undefined) {
    const nullable = 'nullable' in rule && rule.nullable === true;
    if (nullable) return null;
    // Optional free text and lists read null as "empty"; required and typed fields refuse it.
    if (rule.kind === 'text' && !rule.required) return '';
    if (rule.kind === 'tags') return [];
    if (rule.kind === 'references') return [];
    if (rule.kind === 'address' || rule.kind === 'url') return rule.kind === 'url' ? '' : null;
    return fail(MESSAGES.notNull);
  }
  // One check per kind; TypeScript cannot pair the union's members with the table's by itself.
  const check = VALUE_CHECKS[rule.kind] as ValueCheck<CheckedRule['kind']>;
  return check(value, rule, { field, references, errors, fail });
}

/** The ids a body refers to, so the caller can look up which exist before checking. */
export function referencedIds(body: Body, table: FieldTable): { account: string[]; contact: string[]; user: string[] } {
  const out = { account: [] as string[], contact: [] as string[], user: [] as string[] };
  for (const [field, rule] of Object.entries(table)) {
    const value = body[field];
    if (rule.kind === 'reference' && typeof value === 'string' && value.length > 0) out[rule.target].push(value);
    if (rule.kind === 'references' && Array.isArray(value))
      out[rule.target].push(...value.filter((v): v is string => typeof v === 'string'));
  }
  return out;
}

export function fullName(firstName: string, lastName: string): string {
  return [firstName, lastName].filter((part) => part.length > 0).join(' ');
}
