/**
 * The checks that keep values from becoming operators and names from becoming SQL or MongoDB
 * syntax. Both adapters receive only what passed here, and they check names again where they
 * splice them into SQL or a filter.
 */
import { AggregateQuery, Change, Condition, Query, Scalar, SortKey, StoreError } from './port';

/** A field a query may name: identifiers joined by dots. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** A path a change may write: like a field name, but later segments may be map keys such as `2026-01-01`. */
const CHANGE_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_-]+)*$/;
const COLLECTION_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** A segment that would reach an object's prototype when a change is applied in JavaScript. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__']);

function invalid(message: string): StoreError {
  return new StoreError('invalid_query', message);
}

function hasForbiddenSegment(path: string): boolean {
  return path.split('.').some((segment) => FORBIDDEN_SEGMENTS.has(segment));
}

export function assertFieldName(field: unknown): asserts field is string {
  if (typeof field !== 'string' || !FIELD_NAME.test(field) || hasForbiddenSegment(field)) {
    throw invalid(`Invalid field name: ${JSON.stringify(field)}`);
  }
}

export function assertChangePath(path: unknown): asserts path is string {
  if (typeof path !== 'string' || !CHANGE_PATH.test(path) || hasForbiddenSegment(path)) {
    throw invalid(`Invalid change path: ${JSON.stringify(path)}`);
  }
}

export function assertCollectionName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !COLLECTION_NAME.test(name)) {
    throw invalid(`Invalid collection name: ${JSON.stringify(name)}`);
  }
}

export function assertId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) throw invalid('A document id must be a non-empty string');
}

export function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

function assertScalar(value: unknown, field: string): asserts value is Scalar {
  if (!isScalar(value)) throw invalid(`The value for ${field} must be a string, finite number, boolean or null`);
}

/**
 * How deeply `or` and `not` groups may nest in one query: the filter language allows 5 levels,
 * cursors and searches add a few, and a bound keeps the compilers' recursion small.
 */
export const MAX_CONDITION_DEPTH = 12;

export function assertConditions(where: unknown, depth = 0): asserts where is Condition[] {
  if (!Array.isArray(where)) throw invalid('where must be a list of conditions');
  if (depth > MAX_CONDITION_DEPTH) throw invalid(`Conditions nest deeper than ${MAX_CONDITION_DEPTH} groups`);
  for (const condition of where) assertCondition(condition, depth);
}

function assertCondition(condition: unknown, depth: number): asserts condition is Condition {
  if (typeof condition !== 'object' || condition === null) throw invalid('A condition must be an object');
  const c = condition as Record<string, unknown>;
  if ('or' in c) {
    if (!Array.isArray(c.or) || c.or.length === 0) throw invalid('or must be a non-empty list of groups');
    for (const group of c.or) assertConditions(group, depth + 1);
    return;
  }
  if ('not' in c) {
    if (!Array.isArray(c.not) || c.not.length === 0) throw invalid('not must be a non-empty group');
    assertConditions(c.not, depth + 1);
    return;
  }
  assertFieldName(c.field);
  switch (c.op) {
    case 'eq':
    case 'ne':
    case 'has':
      assertScalar(c.value, c.field);
      return;
    case 'in':
    case 'nin':
      if (!Array.isArray(c.values)) throw invalid(`${c.op} on ${c.field} needs a list of values`);
      for (const value of c.values) assertScalar(value, c.field);
      return;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (typeof c.value !== 'string' && !(typeof c.value === 'number' && Number.isFinite(c.value))) {
        throw invalid(`${c.op} on ${c.field} needs a string or a finite number`);
      }
      return;
    case 'contains_text':
      if (typeof c.value !== 'string') throw invalid(`contains_text on ${c.field} needs a string`);
      return;
    case 'exists':
    case 'empty':
      if (typeof c.value !== 'boolean') throw invalid(`${c.op} on ${c.field} needs true or false`);
      return;
    default:
      throw invalid(`Unknown operator: ${JSON.stringify(c.op)}`);
  }
}

function assertSort(sort: unknown): asserts sort is SortKey[] {
  if (!Array.isArray(sort)) throw invalid('sort must be a list');
  for (const key of sort) {
    if (typeof key !== 'object' || key === null) throw invalid('A sort key must be an object');
    assertFieldName((key as SortKey).field);
    const direction = (key as SortKey).direction;
    if (direction !== 'asc' && direction !== 'desc') throw invalid(`Invalid sort direction: ${JSON.stringify(direction)}`);
    const unset = (key as SortKey).unset;
    if (unset !== undefined && unset !== 'low' && unset !== 'high') throw invalid(`Invalid unset placement: ${JSON.stringify(unset)}`);
  }
}

function assertCount(value: unknown, name: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
    throw invalid(`${name} must be a non-negative integer`);
  }
}

export function assertQuery(query: unknown): asserts query is Query {
  if (typeof query !== 'object' || query === null) throw invalid('A query must be an object');
  const q = query as Query;
  if (q.where !== undefined) assertConditions(q.where);
  if (q.sort !== undefined) assertSort(q.sort);
  assertCount(q.limit, 'limit');
  assertCount(q.offset, 'offset');
}

const BUCKETS = new Set(['day', 'week', 'month', 'quarter', 'year']);
const METRIC_OPS = new Set(['sum', 'avg', 'min', 'max']);
/** Group keys and metrics of one aggregate: bounds on the statement's size, not on the answer's. */
export const MAX_GROUP_KEYS = 4;
export const MAX_METRICS = 32;

export function assertAggregateQuery(query: unknown): asserts query is AggregateQuery {
  if (typeof query !== 'object' || query === null) throw invalid('An aggregate query must be an object');
  const q = query as AggregateQuery;
  if (q.where !== undefined) assertConditions(q.where);
  if (!Array.isArray(q.groupBy) || q.groupBy.length > MAX_GROUP_KEYS)
    throw invalid(`groupBy must be a list of at most ${MAX_GROUP_KEYS} keys`);
  for (const key of q.groupBy) {
    if (typeof key !== 'object' || key === null) throw invalid('A group key must be an object');
    assertFieldName(key.field);
    if (key.bucket !== undefined && !BUCKETS.has(key.bucket)) throw invalid(`Invalid date bucket: ${JSON.stringify(key.bucket)}`);
  }
  if (!Array.isArray(q.metrics) || q.metrics.length > MAX_METRICS) throw invalid(`metrics must be a list of at most ${MAX_METRICS}`);
  for (const metric of q.metrics) {
    if (typeof metric !== 'object' || metric === null) throw invalid('A metric must be an object');
    assertFieldName(metric.field);
    if (!METRIC_OPS.has(metric.op)) throw invalid(`Invalid metric: ${JSON.stringify(metric.op)}`);
  }
}

/** Every path a change writes, to check for overlaps (MongoDB refuses two operators on one path). */
export function changePaths(change: Change<unknown>): string[] {
  return [...Object.keys(change.set ?? {}), ...(change.unset ?? []), ...Object.keys(change.inc ?? {})];
}

export function assertChange(change: unknown): asserts change is Change<unknown> {
  if (typeof change !== 'object' || change === null) throw invalid('A change must be an object');
  const c = change as Change<unknown>;
  if (c.set !== undefined) {
    if (typeof c.set !== 'object' || c.set === null || Array.isArray(c.set)) throw invalid('set must be an object');
    for (const [path, value] of Object.entries(c.set)) {
      assertChangePath(path);
      if (value === undefined) throw invalid(`set ${path} has no value; use unset to remove a field`);
      assertDocumentValue(value, path);
    }
  }
  if (c.unset !== undefined) {
    if (!Array.isArray(c.unset)) throw invalid('unset must be a list of paths');
    for (const path of c.unset) assertChangePath(path);
  }
  if (c.inc !== undefined) {
    if (typeof c.inc !== 'object' || c.inc === null || Array.isArray(c.inc)) throw invalid('inc must be an object');
    for (const [path, amount] of Object.entries(c.inc)) {
      assertChangePath(path);
      if (typeof amount !== 'number' || !Number.isFinite(amount)) throw invalid(`inc ${path} needs a finite number`);
    }
  }
  const paths = changePaths(c);
  if (paths.includes('id') || paths.some((p) => p.startsWith('id.'))) throw invalid('A document id cannot be changed');
  const sorted = [...paths].sort();
  for (let i = 1; i < sorted.length; i += 1) {
    const previous = sorted[i - 1] as string;
    const current = sorted[i] as string;
    if (current === previous || current.startsWith(`${previous}.`)) throw invalid(`A change touches ${previous} twice`);
  }
}

/**
 * Stored values are JSON. Keys starting with `$` are refused at any depth: MongoDB would read
 * them as operators in some contexts, and nothing in the CRM needs them.
 */
export function assertDocumentValue(value: unknown, path: string): void {
  checkDocumentValue(value, [path]);
}

/**
 * The walk behind assertDocumentValue. The path is kept as a stack of keys and joined only for an
 * error: building `${path}.${key}` for every key was most of the check's cost on a bulk insert.
 */
function checkDocumentValue(value: unknown, keys: string[]): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(`${keys.join('.')} must be a finite number`);
    return;
  }
  if (Array.isArray(value)) {
    for (const element of value) checkDocumentValue(element, keys);
    return;
  }
  if (typeof value === 'object') {
    if (!isPlainObject(value)) throw invalid(`${keys.join('.')} must be plain JSON data (no Date, Map or class instances)`);
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      if (key.startsWith('$') || FORBIDDEN_SEGMENTS.has(key)) throw invalid(`Invalid key ${JSON.stringify(key)} in ${keys.join('.')}`);
      const inner = (value as Record<string, unknown>)[key];
      if (inner === undefined) continue;
      keys.push(key);
      checkDocumentValue(inner, keys);
      keys.pop();
    }
    return;
  }
  throw invalid(`${keys.join('.')} must be JSON data`);
}

/** A plain object from any realm (jest sandboxes and Node's core modules have their own Object). */
function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  return prototype === null || (Object.getPrototypeOf(prototype) === null && Object.prototype.toString.call(value) === '[object Object]');
}

export function assertDocument(document: unknown): asserts document is { id: string } & Record<string, unknown> {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw invalid('A document must be an object');
  assertId((document as { id?: unknown }).id);
  assertDocumentValue(document, 'document');
}
