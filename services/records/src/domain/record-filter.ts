/**
 * The filter language's rules: a tree of `and`, `or`, `not` and leaves `{field, operator, value}`
 * over the fields a kind describes as data (@crm/vocabulary's RECORD_FILTER_FIELDS; custom fields
 * will resolve the same way). Its size and depth are bounded before anything else is read, and
 * every refusal is a 400 `{"filter": ["<path>: <message>"]}` (or `{"ordering": [...]}`).
 */
import { DomainError } from '@crm/observability';
import {
  FILTER_LIMITS,
  FILTER_OPERATORS,
  OPERATORS_BY_TYPE,
  RECORD_FILTER_FIELDS,
  type FilterFieldDescriptor,
  type FilterOperator,
  type FilterRecordKind,
} from '@crm/vocabulary';
import { parseIsoDate, parseIsoTimestamp } from './clock';

export type FilterValue = string | number | boolean;

export interface FilterLeaf {
  /** Where it sits in the request (`filter.and[0]`), for refusals found later (a related field's bound). */
  path: string;
  field: string;
  descriptor: FilterFieldDescriptor;
  operator: FilterOperator;
  /** Checked and normalised (timestamps as `YYYY-MM-DDThh:mm:ssZ`); none for is_empty/is_not_empty. */
  value?: FilterValue | FilterValue[];
}

export type FilterNode = { and: FilterNode[] } | { or: FilterNode[] } | { not: FilterNode } | { leaf: FilterLeaf };

/** A field's descriptor by its public name, or undefined when the kind has no such field. */
export type FieldResolver = (name: string) => FilterFieldDescriptor | undefined;

export function builtInFields(kind: FilterRecordKind): FieldResolver {
  const table = RECORD_FILTER_FIELDS[kind];
  return (name) => (Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined);
}

export function refused(parameter: 'filter' | 'ordering', message: string): DomainError {
  return new DomainError('invalid_argument', `${parameter}: ${message}`, { [parameter]: [message] });
}

const filterError = (path: string, message: string) => refused('filter', `${path}: ${message}`);

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The filter of a request: JSON text (empty: none). */
export function parseFilterJson(text: string | undefined, fields: FieldResolver): FilterNode | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw filterError('filter', 'must be a JSON object.');
  }
  return parseFilter(parsed, fields);
}

export function parseFilter(input: unknown, fields: FieldResolver): FilterNode {
  measure(input, 'filter', 0, { leaves: 0 });
  return node(input as Record<string, unknown>, 'filter', fields);
}

const GROUPS = ['and', 'or', 'not'] as const;
const LEAF_KEYS = new Set(['field', 'operator', 'value']);

/** The shape, depth and leaf count, checked before any field or value is looked at. */
function measure(input: unknown, path: string, depth: number, count: { leaves: number }): void {
  if (!isObject(input))
    throw filterError(path, 'must be an object: {"and": [...]}, {"or": [...]}, {"not": {...}} or {"field", "operator", "value"}.');
  const keys = Object.keys(input);
  const group = GROUPS.find((name) => name in input);
  if (!group) {
    count.leaves += 1;
    if (count.leaves > FILTER_LIMITS.maxLeaves) throw filterError(path, `a filter holds at most ${FILTER_LIMITS.maxLeaves} conditions.`);
    return;
  }
  if (keys.length !== 1) throw filterError(path, `"${group}" must be the object's only key.`);
  if (depth + 1 > FILTER_LIMITS.maxDepth) throw filterError(path, `a filter nests at most ${FILTER_LIMITS.maxDepth} levels of and/or/not.`);
  const inner = input[group];
  if (group === 'not') return measure(inner, `${path}.not`, depth + 1, count);
  if (!Array.isArray(inner) || inner.length === 0) throw filterError(`${path}.${group}`, 'must be a non-empty list of filters.');
  inner.forEach((child, i) => measure(child, `${path}.${group}[${i}]`, depth + 1, count));
}

function node(input: Record<string, unknown>, path: string, fields: FieldResolver): FilterNode {
  if ('and' in input) return { and: (input.and as Record<string, unknown>[]).map((child, i) => node(child, `${path}.and[${i}]`, fields)) };
  if ('or' in input) return { or: (input.or as Record<string, unknown>[]).map((child, i) => node(child, `${path}.or[${i}]`, fields)) };
  if ('not' in input) return { not: node(input.not as Record<string, unknown>, `${path}.not`, fields) };
  return { leaf: leaf(input, path, fields) };
}

function leaf(input: Record<string, unknown>, path: string, fields: FieldResolver): FilterLeaf {
  const unknownKey = Object.keys(input).find((key) => !LEAF_KEYS.has(key));
  if (unknownKey !== undefined) throw filterError(path, `unknown key "${unknownKey}" (a condition has field, operator and value).`);
  const { field, operator } = input;
  if (typeof field !== 'string') throw filterError(`${path}.field`, 'must be a field name.');
  const descriptor = fields(field);
  if (!descriptor) throw filterError(`${path}.field`, `unknown field "${field}".`);
  if (typeof operator !== 'string' || !(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    throw filterError(`${path}.operator`, `unknown operator ${JSON.stringify(operator)}; one of ${FILTER_OPERATORS.join(', ')}.`);
  }
  const op = operator as FilterOperator;
  if (!OPERATORS_BY_TYPE[descriptor.type].includes(op)) {
    throw filterError(`${path}.operator`, `"${op}" does not apply to ${descriptor.type} field "${field}".`);
  }
  const valuePath = `${path}.value`;
  if (op === 'is_empty' || op === 'is_not_empty') {
    if (input.value !== undefined && input.value !== null) throw filterError(valuePath, `"${op}" takes no value.`);
    return { path, field, descriptor, operator: op };
  }
  if (op === 'in' || op === 'not_in') {
    const values = input.value;
    if (!Array.isArray(values) || values.length === 0 || values.length > FILTER_LIMITS.maxValues) {
      throw filterError(valuePath, `"${op}" needs a list of 1 to ${FILTER_LIMITS.maxValues} values.`);
    }
    return { path, field, descriptor, operator: op, value: values.map((v, i) => checkedValue(v, descriptor, `${valuePath}[${i}]`, field)) };
  }
  if (op === 'contains' && descriptor.type === 'tags') {
    if (typeof input.value !== 'string' || input.value.length === 0)
      throw filterError(valuePath, 'must be a tag name (a non-empty string).');
    return { path, field, descriptor, operator: op, value: input.value };
  }
  return { path, field, descriptor, operator: op, value: checkedValue(input.value, descriptor, valuePath, field) };
}

/** A value of the field's type, normalised as it is stored. */
function checkedValue(value: unknown, descriptor: FilterFieldDescriptor, path: string, field: string): FilterValue {
  const wrong = (expected: string) => filterError(path, `must be ${expected} for "${field}".`);
  switch (descriptor.type) {
    case 'text':
    case 'reference':
    case 'tags':
      if (typeof value !== 'string') throw wrong('a string');
      if (value.length > FILTER_LIMITS.maxTextLength) throw wrong(`at most ${FILTER_LIMITS.maxTextLength} characters`);
      return value;
    case 'choice':
      if (typeof value !== 'string' || !(descriptor.choices ?? []).includes(value))
        throw wrong(`one of ${(descriptor.choices ?? []).join(', ')}`);
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw wrong('a number');
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw wrong('true or false');
      return value;
    case 'date': {
      const date = typeof value === 'string' ? parseIsoDate(value) : null;
      if (!date) throw wrong('an ISO 8601 date');
      return date;
    }
    case 'timestamp': {
      const timestamp = typeof value === 'string' ? parseIsoTimestamp(value) : null;
      if (!timestamp) throw wrong('an ISO 8601 date or timestamp');
      return timestamp;
    }
    default: {
      const unreachable: never = descriptor.type;
      throw new Error(`Unknown field type ${String(unreachable)}`);
    }
  }
}

export interface OrderingKey {
  field: string;
  descriptor: FilterFieldDescriptor;
  direction: 'asc' | 'desc';
}

/** `ordering`: up to 3 comma-separated sortable fields, `-` for descending; default `-createdAt`. */
export function parseOrdering(value: string | undefined, fields: FieldResolver): OrderingKey[] {
  const text = value === undefined || value.trim() === '' ? '-createdAt' : value;
  const parts = text.split(',');
  if (parts.length > FILTER_LIMITS.maxOrderingFields) {
    throw refused('ordering', `at most ${FILTER_LIMITS.maxOrderingFields} comma-separated fields.`);
  }
  const seen = new Set<string>();
  return parts.map((part) => {
    const descending = part.startsWith('-');
    const field = descending ? part.slice(1) : part;
    const descriptor = fields(field);
    if (!descriptor) throw refused('ordering', `unknown field "${field}".`);
    if (!descriptor.sortable) throw refused('ordering', `"${field}" cannot be ordered by.`);
    if (seen.has(field)) throw refused('ordering', `"${field}" is named twice.`);
    seen.add(field);
    return { field, descriptor, direction: descending ? 'desc' : 'asc' };
  });
}

/** A kind's filter from a request's JSON text, over its built-in fields. */
export function kindFilter(kind: FilterRecordKind, text: string | undefined): FilterNode | undefined {
  return parseFilterJson(text, builtInFields(kind));
}
