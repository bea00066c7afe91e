/**
 * Translates the Query model into SQL over the JSON documents. Every value is a bound
 * parameter; only validated field names (through SqliteColumns) reach the SQL text.
 */
import { Condition, Query, Scalar, SortKey, StoreError } from '../port';
import { isScalar } from '../validate-query';
import { jsonPath, SqliteColumns } from './sqlite-columns';
import { ftsPhrase, TRIGRAM_CHARACTERS } from './sqlite-text-index';
import { workspaceCountSql } from './sqlite-workspace-counts';

export type SqlValue = string | number | null;

export interface SqlFragment {
  sql: string;
  params: SqlValue[];
}

/** JSON true/false come out of json_extract as 1/0, so booleans are compared as those. */
function bindable(value: Scalar): SqlValue {
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

function checkedScalar(value: unknown): Scalar {
  if (!isScalar(value)) throw new StoreError('invalid_query', 'A condition value must be a scalar');
  return value;
}

/**
 * A list of values padded to the next power of two by repeating its last value (harmless in IN and
 * NOT IN), so lists of any length share a few statement texts: the adapter keeps every prepared
 * statement for the life of the connection (see sqlite-store.ts), and this bounds how many there are.
 */
function padded(values: Scalar[]): Scalar[] {
  let size = 1;
  while (size < values.length) size *= 2;
  return values.length === 0 ? values : [...values, ...Array<Scalar>(size - values.length).fill(values[values.length - 1]!)];
}

function inList(expression: string, values: Scalar[], params: SqlValue[]): string {
  const present = padded(values.filter((v) => v !== null));
  const parts: string[] = [];
  if (present.length > 0) {
    parts.push(`${expression} IN (${present.map(() => '?').join(', ')})`);
    for (const value of present) params.push(bindable(value));
  }
  if (values.includes(null)) parts.push(`${expression} IS NULL`);
  if (parts.length === 0) return '0';
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' OR ')})`;
}

/** Like MongoDB's $nin, an absent field matches unless null is in the list. */
function notInList(expression: string, values: Scalar[], params: SqlValue[]): string {
  const listed = values.filter((v) => v !== null);
  const nullListed = listed.length < values.length;
  const present = padded(listed);
  const nullPart = nullListed ? `${expression} IS NOT NULL` : `${expression} IS NULL`;
  if (present.length === 0) return nullListed ? nullPart : '1';
  for (const value of present) params.push(bindable(value));
  const notIn = `${expression} NOT IN (${present.map(() => '?').join(', ')})`;
  return nullListed ? `(${nullPart} AND ${notIn})` : `(${nullPart} OR ${notIn})`;
}

/** Ranges compare like MongoDB: a number bound only matches numbers, a string bound only strings. */
function range(expression: string, op: string, value: unknown, params: SqlValue[]): string {
  const sign = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[op];
  if (typeof value === 'number' && Number.isFinite(value)) {
    params.push(value);
    return `(${expression} ${sign} ? AND typeof(${expression}) IN ('integer', 'real'))`;
  }
  if (typeof value === 'string') {
    params.push(value);
    return `(${expression} ${sign} ? AND typeof(${expression}) = 'text')`;
  }
  throw new StoreError('invalid_query', `${op} needs a string or a finite number`);
}

/** Array membership with the element's JSON type checked, so true never matches 1. */
function has(field: string, value: Scalar, params: SqlValue[]): string {
  const path = jsonPath(field);
  let element: string;
  if (value === null) {
    element = `e.type = 'null'`;
  } else if (typeof value === 'boolean') {
    element = `e.type = '${value ? 'true' : 'false'}'`;
  } else if (typeof value === 'number') {
    element = `e.type IN ('integer', 'real') AND e.value = ?`;
    params.push(value);
  } else {
    element = `e.type = 'text' AND e.value = ?`;
    params.push(value);
  }
  return `(json_type(doc, ${path}) = 'array' AND EXISTS (SELECT 1 FROM json_each(doc, ${path}) AS e WHERE ${element}))`;
}

function condition(c: Condition, columns: SqliteColumns, params: SqlValue[]): string {
  if ('or' in c) {
    if (!Array.isArray(c.or) || c.or.length === 0) throw new StoreError('invalid_query', 'or needs at least one group');
    return `(${c.or.map((group) => `(${conditions(group, columns, params)})`).join(' OR ')})`;
  }
  const expression = columns.expression(c.field);
  switch (c.op) {
    case 'eq': {
      const value = checkedScalar(c.value);
      if (value === null) return `${expression} IS NULL`;
      params.push(bindable(value));
      return `${expression} = ?`;
    }
    case 'ne': {
      const value = checkedScalar(c.value);
      if (value === null) return `${expression} IS NOT NULL`;
      params.push(bindable(value));
      return `${expression} IS NOT ?`;
    }
    case 'in':
    case 'nin': {
      if (!Array.isArray(c.values)) throw new StoreError('invalid_query', `${c.op} needs a list of values`);
      const values = c.values.map(checkedScalar);
      return c.op === 'in' ? inList(expression, values, params) : notInList(expression, values, params);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return range(expression, c.op, c.value, params);
    case 'contains_text':
      if (typeof c.value !== 'string') throw new StoreError('invalid_query', 'contains_text needs a string');
      return containsText(c.field, c.value, columns, params);
    case 'has':
      return has(c.field, checkedScalar(c.value), params);
    case 'exists':
      if (typeof c.value !== 'boolean') throw new StoreError('invalid_query', 'exists needs true or false');
      return c.value ? `${expression} IS NOT NULL` : `${expression} IS NULL`;
    default:
      throw new StoreError('invalid_query', `Unknown operator: ${JSON.stringify((c as { op?: unknown }).op)}`);
  }
}

/**
 * instr, not LIKE/GLOB: the needle is matched literally, whatever characters it holds. A field with
 * a trigram index is searched through it when the needle is long enough: the index narrows the
 * rows to those holding the needle's trigrams in sequence, and the same instr test runs on the
 * index's copy of the value, so the answer is exactly the scan's.
 */
function containsText(field: string, needle: string, columns: SqliteColumns, params: SqlValue[]): string {
  const expression = columns.expression(field);
  const index = columns.textIndex(field);
  if (index && [...needle].length >= TRIGRAM_CHARACTERS) {
    params.push(ftsPhrase(needle), needle);
    return `rowid IN (SELECT rowid FROM ${index} WHERE ${index} MATCH ? AND instr(lower(value), lower(?)) > 0)`;
  }
  params.push(needle);
  // A short needle scans. On an indexed field the range (true of every text) has the planner read
  // the values from the field's index instead of parsing every document.
  const fromIndex = index ? `${expression} >= '' AND ` : '';
  return `(${fromIndex}typeof(${expression}) = 'text' AND instr(lower(${expression}), lower(?)) > 0)`;
}

function conditions(where: Condition[], columns: SqliteColumns, params: SqlValue[]): string {
  if (where.length === 0) return '1';
  return where.map((c) => condition(c, columns, params)).join(' AND ');
}

export function whereToSql(where: Condition[], columns: SqliteColumns): SqlFragment {
  const params: SqlValue[] = [];
  const sql = conditions(where, columns, params);
  return { sql, params };
}

export function orderToSql(sort: SortKey[], columns: SqliteColumns): string {
  const keys = sort.map((key) => `${columns.expression(key.field)} ${key.direction === 'desc' ? 'DESC' : 'ASC'}`);
  const last = sort[sort.length - 1];
  if (!sort.some((key) => key.field === 'id')) keys.push(`id ${last?.direction === 'desc' ? 'DESC' : 'ASC'}`);
  return keys.join(', ');
}

/** SELECT of the documents a query asks for, in order, paged. */
export function selectToSql(query: Query, columns: SqliteColumns, select = 'doc'): SqlFragment {
  const where = whereToSql(query.where ?? [], columns);
  let sql = `SELECT ${select} FROM ${columns.table} WHERE ${where.sql} ORDER BY ${orderToSql(query.sort ?? [], columns)}`;
  const params = [...where.params];
  if (query.limit !== undefined || query.offset !== undefined) {
    sql += ' LIMIT ? OFFSET ?';
    params.push(query.limit ?? -1, query.offset ?? 0);
  }
  return { sql, params };
}

/** Whether a query searches text anywhere in its conditions (see SqliteStoreAdapter.find). */
export function searchesText(where: Condition[]): boolean {
  return where.some((c) => ('or' in c ? c.or.some(searchesText) : c.op === 'contains_text'));
}

/** The rowids of up to `cap` matching documents, in no order, so the planner may pick a covering index. */
export function matchingRowidsToSql(where: Condition[], columns: SqliteColumns, cap: number): SqlFragment {
  const fromIndex = workspaceTextMatchesToSql(where, columns, cap);
  if (fromIndex) return fromIndex;
  const fragment = whereToSql(where, columns);
  return { sql: `SELECT rowid FROM ${columns.table} WHERE ${fragment.sql} LIMIT ?`, params: [...fragment.params, cap] };
}

/**
 * A workspace's text search and nothing else, answered from the trigram index alone (it carries
 * workspace_id): reading 10,000 matching rows of the collection to check their workspace cost
 * seven times the search itself.
 */
function workspaceTextMatchesToSql(where: Condition[], columns: SqliteColumns, cap: number): SqlFragment | undefined {
  if (where.length !== 2 || columns.expression('workspaceId') !== 'workspace_id') return undefined;
  const scope = where.find((c) => !('or' in c) && c.field === 'workspaceId' && c.op === 'eq' && typeof c.value === 'string');
  const text = where.find((c) => !('or' in c) && c.op === 'contains_text' && typeof c.value === 'string');
  if (!scope || !text || 'or' in scope || scope.op !== 'eq' || 'or' in text || text.op !== 'contains_text') return undefined;
  const index = columns.textIndex(text.field);
  if (!index || [...text.value].length < TRIGRAM_CHARACTERS) return undefined;
  return {
    sql: `SELECT rowid FROM ${index} WHERE ${index} MATCH ? AND workspace_id = ? AND instr(lower(value), lower(?)) > 0 LIMIT ?`,
    params: [ftsPhrase(text.value), scope.value as string, text.value, cap],
  };
}

/** The documents with these rowids (a JSON array), in the query's order, paged. */
export function selectRowidsToSql(query: Query, rowidsJson: string, columns: SqliteColumns): SqlFragment {
  const sql =
    `SELECT doc FROM ${columns.table} WHERE rowid IN (SELECT value FROM json_each(?))` +
    ` ORDER BY ${orderToSql(query.sort ?? [], columns)} LIMIT ? OFFSET ?`;
  return { sql, params: [rowidsJson, query.limit ?? -1, query.offset ?? 0] };
}

/**
 * The documents of a query that are among these rowids (a JSON array), in order, paged: the sort
 * index is walked (`+rowid` keeps the planner from looking the rowids up and sorting them all)
 * and each entry kept when its rowid is listed, so a page of common matches stops early. The
 * query's text conditions are left out: the rowids already meet them.
 */
export function selectAmongRowidsToSql(query: Query, rowidsJson: string, columns: SqliteColumns): SqlFragment {
  const where = whereToSql(
    (query.where ?? []).filter((c) => !searchesText([c])),
    columns,
  );
  const sql =
    `SELECT doc FROM ${columns.table} WHERE ${where.sql} AND +rowid IN (SELECT value FROM json_each(?))` +
    ` ORDER BY ${orderToSql(query.sort ?? [], columns)} LIMIT ? OFFSET ?`;
  return { sql, params: [...where.params, rowidsJson, query.limit ?? -1, query.offset ?? 0] };
}

export function countToSql(where: Condition[], columns: SqliteColumns): SqlFragment {
  const kept = workspaceCountSql(where, columns);
  if (kept) return kept;
  const fragment = whereToSql(where, columns);
  return { sql: `SELECT count(*) FROM ${columns.table} WHERE ${fragment.sql}`, params: fragment.params };
}
