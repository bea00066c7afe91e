/**
 * Condition evaluation against a record as the public API shows it. Comparisons are by the
 * field's JSON value: strings compare case-insensitively for eq/neq/in/not_in/contains, numbers
 * and dates (ISO strings) order naturally for gt/gte/lt/lte; a missing or null field is empty.
 */
import { CUSTOM_FIELDS_PREFIX } from '@crm/vocabulary';
import type { Condition, JsonValue } from './model';

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  if (typeof a === 'number' && typeof b === 'string' && b.trim() !== '') return a === Number(b);
  if (typeof a === 'string' && typeof b === 'number') return a.trim() !== '' && Number(a) === b;
  return a === b;
}

function equals(actual: unknown, expected: JsonValue | undefined): boolean {
  // A list field equals a value when it holds it (tags eq "vip").
  if (Array.isArray(actual)) return actual.some((item) => same(item, expected));
  return same(actual, expected);
}

function compare(actual: unknown, expected: JsonValue | undefined): number | null {
  if (isEmpty(actual) || expected === undefined || expected === null) return null;
  if (typeof actual === 'number' || typeof expected === 'number') {
    const a = Number(actual);
    const b = Number(expected);
    return Number.isFinite(a) && Number.isFinite(b) ? a - b : null;
  }
  if (typeof actual === 'string' && typeof expected === 'string') return actual < expected ? -1 : actual > expected ? 1 : 0;
  return null;
}

function contains(actual: unknown, expected: JsonValue | undefined): boolean {
  if (Array.isArray(actual)) return actual.some((item) => same(item, expected));
  if (typeof actual !== 'string' || (typeof expected !== 'string' && typeof expected !== 'number')) return false;
  return actual.toLowerCase().includes(String(expected).toLowerCase());
}

/** A field's value; `customFields.<key>` reads the record's custom values. */
function fieldValue(fields: Record<string, unknown>, field: string): unknown {
  if (Object.prototype.hasOwnProperty.call(fields, field)) return fields[field];
  if (!field.startsWith(CUSTOM_FIELDS_PREFIX)) return undefined;
  const custom = fields.customFields;
  return custom && typeof custom === 'object' ? (custom as Record<string, unknown>)[field.slice(CUSTOM_FIELDS_PREFIX.length)] : undefined;
}

export function conditionHolds(condition: Condition, fields: Record<string, unknown>): boolean {
  const actual = fieldValue(fields, condition.field);
  const expected = condition.value;
  switch (condition.operator) {
    case 'eq':
      return equals(actual, expected);
    case 'neq':
      return !equals(actual, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((value) => equals(actual, value));
    case 'not_in':
      return Array.isArray(expected) && !expected.some((value) => equals(actual, value));
    case 'contains':
      return contains(actual, expected);
    case 'gt': {
      const c = compare(actual, expected);
      return c !== null && c > 0;
    }
    case 'gte': {
      const c = compare(actual, expected);
      return c !== null && c >= 0;
    }
    case 'lt': {
      const c = compare(actual, expected);
      return c !== null && c < 0;
    }
    case 'lte': {
      const c = compare(actual, expected);
      return c !== null && c <= 0;
    }
    case 'is_empty':
      return isEmpty(actual);
    case 'is_not_empty':
      return !isEmpty(actual);
    default: {
      const unreachable: never = condition.operator;
      throw new Error(`Unknown operator ${String(unreachable)}`);
    }
  }
}

/** Trigger conditions: every one holds (an empty list always holds). */
export function allHold(conditions: Condition[], fields: Record<string, unknown>): boolean {
  return conditions.every((condition) => conditionHolds(condition, fields));
}

/** Exit conditions: the enrollment ends when any one holds (an empty list never does). */
export function anyHolds(conditions: Condition[], fields: Record<string, unknown>): boolean {
  return conditions.some((condition) => conditionHolds(condition, fields));
}
