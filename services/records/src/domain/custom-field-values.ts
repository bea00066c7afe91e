/**
 * Custom field values on records (contract-decisions "Round 3"): the checks of a write's
 * `customFields` against the kind's definitions, how a PATCH merges into the stored values, the
 * answer's shape (one entry per defined field), the search text of text-like fields and the
 * claims that keep unique fields unique. Pure: the definitions arrive with the write.
 */
import { createHash } from 'node:crypto';
import {
  CUSTOM_FIELD_LIMITS,
  CUSTOM_FIELDS_PREFIX,
  SEARCHABLE_CUSTOM_FIELD_TYPES,
  characterCount,
  isEmail,
  type CustomFieldDefinition,
  type CustomFieldValue,
  type CustomFieldValues,
} from '@crm/vocabulary';
import { isCalendarDate, parseIsoTimestamp } from './clock';
import { FieldErrorList } from '@crm/observability';
import { isHttpUrl, MESSAGES } from './field-messages';

export type { CustomFieldValues };

/** A write's checked custom values: the keys sent, null for a key the client cleared. */
export type CustomFieldPatch = Record<string, CustomFieldValue | null>;

const errorKey = (key: string) => `${CUSTOM_FIELDS_PREFIX}${key}`;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a body's `customFields` (absent: undefined) against the definitions. On create, every
 * required field must have a value. Problems land in `errors` keyed `customFields.<key>`.
 */
export function checkCustomFields(
  value: unknown,
  definitions: readonly CustomFieldDefinition[],
  mode: 'create' | 'update',
  errors: FieldErrorList,
): CustomFieldPatch | undefined {
  const byKey = new Map(definitions.map((definition) => [definition.key, definition]));
  let patch: CustomFieldPatch | undefined;
  if (value !== undefined && value !== null) {
    if (!isPlainObject(value)) {
      errors.add('customFields', MESSAGES.object);
      return undefined;
    }
    patch = {};
    for (const [key, raw] of Object.entries(value)) {
      const definition = byKey.get(key);
      if (!definition) {
        errors.add(errorKey(key), MESSAGES.unknown);
        continue;
      }
      const checked = checkValue(raw, definition);
      if (typeof checked === 'object' && checked !== null && 'problem' in checked) errors.add(errorKey(key), checked.problem);
      else patch[key] = checked as CustomFieldValue | null;
    }
  }
  if (mode === 'create') {
    for (const definition of definitions) {
      if (definition.required && (patch?.[definition.key] ?? null) === null && !errors.errors[errorKey(definition.key)]) {
        errors.add(errorKey(definition.key), MESSAGES.required);
      }
    }
  } else if (patch) {
    for (const [key, checked] of Object.entries(patch)) {
      if (checked === null && byKey.get(key)!.required) errors.add(errorKey(key), MESSAGES.notNull);
    }
  }
  return patch;
}

/** A value of the definition's type, normalised as it is stored; null clears; `{problem}` refuses. */
export function checkValue(value: unknown, definition: CustomFieldDefinition): CustomFieldValue | null | { problem: string } {
  if (value === null || value === undefined) return null;
  const problem = (message: string) => ({ problem: message });
  switch (definition.type) {
    case 'text': {
      if (typeof value !== 'string') return problem(MESSAGES.string);
      const text = value.trim();
      if (characterCount(text) > CUSTOM_FIELD_LIMITS.text) return problem(MESSAGES.maxLength(CUSTOM_FIELD_LIMITS.text));
      return text.length === 0 ? null : text;
    }
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? value : problem(MESSAGES.number);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value) ? value : problem(MESSAGES.integer);
    case 'boolean':
      return typeof value === 'boolean' ? value : problem(MESSAGES.boolean);
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? value : problem(MESSAGES.date);
    case 'datetime': {
      const at = typeof value === 'string' ? parseIsoTimestamp(value) : null;
      return at ?? problem('Datetime has wrong format. Use an ISO 8601 timestamp: YYYY-MM-DDThh:mm:ssZ.');
    }
    case 'select':
      if (typeof value !== 'string' || !definition.options.includes(value))
        return problem(MESSAGES.choice(typeof value === 'string' ? value : JSON.stringify(value)));
      return value;
    case 'multiselect': {
      if (!Array.isArray(value)) return problem(MESSAGES.list);
      const outside = value.find((item) => typeof item !== 'string' || !definition.options.includes(item));
      if (outside !== undefined) return problem(MESSAGES.choice(typeof outside === 'string' ? outside : JSON.stringify(outside)));
      const items = [...new Set(value as string[])];
      return items.length === 0 ? null : items;
    }
    case 'url': {
      if (typeof value !== 'string') return problem(MESSAGES.string);
      const url = value.trim();
      if (url.length === 0) return null;
      return isHttpUrl(url) ? url : problem(MESSAGES.url);
    }
    case 'email': {
      if (typeof value !== 'string') return problem(MESSAGES.string);
      const email = value.trim();
      if (email.length === 0) return null;
      return isEmail(email) ? email : problem(MESSAGES.email);
    }
    default: {
      const unreachable: never = definition.type;
      throw new Error(`Unknown custom field type ${String(unreachable)}`);
    }
  }
}

/**
 * A CSV row's custom cells (JSON text of key -> cell text) as the values a body carries: each cell
 * read by its field's type (numbers; true/false, yes/no, 1/0; a multiselect's options split on ";"
 * or ","), left as text when it cannot be read, so the usual checks name the problem.
 */
export function cellValues(text: string, definitions: readonly CustomFieldDefinition[]): Record<string, unknown> {
  const cells = JSON.parse(text) as Record<string, unknown>;
  const byKey = new Map(definitions.map((definition) => [definition.key, definition]));
  const values: Record<string, unknown> = {};
  for (const [key, cell] of Object.entries(cells)) {
    const definition = byKey.get(key);
    values[key] = definition && typeof cell === 'string' ? cellValue(cell.trim(), definition) : cell;
  }
  return values;
}

function cellValue(cell: string, definition: CustomFieldDefinition): unknown {
  switch (definition.type) {
    case 'number':
    case 'integer':
      return /^-?\d+(\.\d+)?$/.test(cell) ? Number(cell) : cell;
    case 'boolean': {
      const word = cell.toLowerCase();
      if (['true', 'yes', '1'].includes(word)) return true;
      if (['false', 'no', '0'].includes(word)) return false;
      return cell;
    }
    case 'multiselect':
      return cell
        .split(/[;,]/)
        .map((option) => option.trim())
        .filter((option) => option.length > 0);
    default:
      return cell;
  }
}

/** The stored values after a write: the patch over the current values, cleared keys removed. */
export function withPatch(current: CustomFieldValues | undefined, patch: CustomFieldPatch): CustomFieldValues {
  const next: CustomFieldValues = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** A record's custom values and the claims they make on unique fields, as stored. */
export interface StoredCustomFields {
  customFields: CustomFieldValues;
  /** Bookkeeping (never answered): released and taken by the record's commits (record-writes.ts). */
  uniqueClaims: UniqueClaim[];
}

/** A new record's values from its checked body (`checkFields`'s output). */
export function newCustomFields(
  checked: Record<string, unknown>,
  workspaceId: string,
  kind: string,
  definitions: readonly CustomFieldDefinition[],
): StoredCustomFields {
  const customFields = withPatch(undefined, (checked.customFields as CustomFieldPatch | undefined) ?? {});
  return { customFields, uniqueClaims: uniqueClaims(workspaceId, kind, customFields, definitions) };
}

/** What a PATCH's checked body changes in a record's values: the merged values, or nothing when it sent none. */
export function customValueChanges(
  current: { workspaceId: string; customFields?: CustomFieldValues },
  checked: Record<string, unknown>,
  kind: string,
  definitions: readonly CustomFieldDefinition[],
): Partial<StoredCustomFields> {
  if (!('customFields' in checked)) return {};
  const customFields = withPatch(current.customFields, checked.customFields as CustomFieldPatch);
  return { customFields, uniqueClaims: uniqueClaims(current.workspaceId, kind, customFields, definitions) };
}

/** The answer's `customFields`: one entry per defined field, null when unset (values of deleted fields left out). */
export function answerValues(
  values: CustomFieldValues | undefined,
  definitions: readonly CustomFieldDefinition[],
): Record<string, CustomFieldValue | null> {
  const out: Record<string, CustomFieldValue | null> = {};
  for (const definition of definitions) out[definition.key] = values?.[definition.key] ?? null;
  return out;
}

/** The values `search` reads (text, url and email fields), for the record's search text. */
export function searchableValues(values: CustomFieldValues | undefined, definitions: readonly CustomFieldDefinition[]): string[] {
  if (!values) return [];
  return definitions
    .filter((definition) => SEARCHABLE_CUSTOM_FIELD_TYPES.includes(definition.type))
    .map((definition) => values[definition.key])
    .filter((value): value is string => typeof value === 'string');
}

/** A claim on one value of a unique field: at most one record of the kind in the workspace holds it. */
export interface UniqueClaim {
  /** Stored as the claim document's id (custom-field-collections.ts), so a second claim is a duplicate. */
  id: string;
  key: string;
}

/** The claims a record's values make on its kind's unique fields (emails compared case-insensitively). */
export function uniqueClaims(
  workspaceId: string,
  kind: string,
  values: CustomFieldValues | undefined,
  definitions: readonly CustomFieldDefinition[],
): UniqueClaim[] {
  if (!values) return [];
  return definitions.flatMap((definition) => {
    const value = values[definition.key];
    if (!definition.unique || value === undefined) return [];
    const normal = definition.type === 'email' ? String(value).toLowerCase() : String(value);
    const id = createHash('sha256')
      .update(JSON.stringify([workspaceId, kind, definition.key, normal]))
      .digest('base64url');
    return [{ id, key: definition.key }];
  });
}

/**
 * The values a record made from another (a lead's conversion) takes: for each of the target kind's
 * fields, the source's value of the field with the same key and type. A value the target's field
 * cannot hold (an option it lacks, a text too long) and a required field left without a value are
 * refused, keyed `customFields.<key>` and naming the target kind, so nothing is dropped in silence.
 */
export function carriedValues(
  source: { values: CustomFieldValues | undefined; definitions: readonly CustomFieldDefinition[] },
  target: { kind: string; definitions: readonly CustomFieldDefinition[] },
  errors: FieldErrorList,
): CustomFieldValues {
  const sourceType = new Map(source.definitions.map((definition) => [definition.key, definition.type]));
  const values: CustomFieldValues = {};
  for (const definition of target.definitions) {
    const raw = sourceType.get(definition.key) === definition.type ? source.values?.[definition.key] : undefined;
    const checked = checkValue(raw, definition);
    if (typeof checked === 'object' && checked !== null && 'problem' in checked) {
      errors.add(errorKey(definition.key), `The new ${target.kind}'s field cannot hold the lead's value: ${checked.problem}`);
    } else if (checked !== null) {
      values[definition.key] = checked;
    } else if (definition.required) {
      errors.add(
        errorKey(definition.key),
        `The new ${target.kind} requires this field: give the lead a value in a ${definition.type} field of the same key, or make the ${target.kind}'s field optional.`,
      );
    }
  }
  return values;
}
