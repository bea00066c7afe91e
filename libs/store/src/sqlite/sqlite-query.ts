/**
 * Translates the Query model into SQL over the JSON documents. Every value is a bound
 * parameter; only validated field names (through SqliteColumns) reach the SQL text.
 */
import { Condition, isFieldCondition, Query, Scalar, SortKey, StoreError } from '../port';
import { isScalar } from '../validate-query';
import { jsonPath, quoteIdentifier, SqliteColumns, textIndexName } from './sqlite-columns';
import { textMatchQuery, textValuesName, TRIGRAM_CHARACTERS } from './sqlite-text-index';
import { valuesCountToSql, valuesRowidsToSql, valuesShareToSql } from './sqlite-text-values';
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
  if ('not' in c) {
    if (!Array.isArray(c.not) || c.not.length === 0) throw new StoreError('invalid_query', 'not needs a non-empty group');
    // A comparison with an absent value is NULL in SQL, and NOT NULL is NULL: coalesce makes it false first.
    return `NOT coalesce((${conditions(c.not, columns, params)}), 0)`;
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
    case 'empty': {
      if (typeof c.value !== 'boolean') throw new StoreError('invalid_query', 'empty needs true or false');
      const path = jsonPath(c.field);
      const empty = `(${expression} IS NULL OR ${expression} = '' OR coalesce(json_type(doc, ${path}) = 'array' AND json_array_length(doc, ${path}) = 0, 0))`;
      return c.value ? empty : `NOT ${empty}`;
    }
    default:
      throw new StoreError('invalid_query', `Unknown operator: ${JSON.stringify((c as { op?: unknown }).op)}`);
  }
}

/**
 * instr, not LIKE/GLOB: the needle is matched literally, whatever characters it holds. A field with
 * a trigram index is searched through it when the needle is long enough: the index holds exactly
 * the rows the instr test would keep (see sqlite-text-index.ts).
 */
function containsText(field: string, needle: string, columns: SqliteColumns, params: SqlValue[]): string {
  const expression = columns.expression(field);
  const index = columns.textIndex(field);
  if (index && [...needle].length >= TRIGRAM_CHARACTERS) {
    params.push(needle);
    return `rowid IN (SELECT rowid FROM ${index} WHERE ${index} MATCH ${textMatchQuery(false)})`;
  }
  // A short needle scans (a workspace's search reads its values table instead: workspaceTextSearch).
  return `(${scanText(expression, needle, params)})`;
}

/** The scan's test of one row: what a text index answers for a whole table. */
function scanText(expression: string, needle: string, params: SqlValue[]): string {
  params.push(needle);
  return `typeof(${expression}) = 'text' AND instr(lower(${expression}), lower(?)) > 0`;
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

/**
 * The ORDER BY keys of a sort, ties broken by id in the direction of the last key. SQLite sorts
 * NULL below every value; a key whose unset values sort high is preceded by its unset test.
 */
function orderKeys(sort: SortKey[], columns: SqliteColumns): { expression: string; direction: 'ASC' | 'DESC' }[] {
  const keys = sort.flatMap((key) => {
    const expression = columns.expression(key.field);
    const direction: 'ASC' | 'DESC' = key.direction === 'desc' ? 'DESC' : 'ASC';
    if (key.unset !== 'high') return [{ expression, direction }];
    // Absent, null and '' sort alike (as one unset value, ties by id), above every value.
    return [
      { expression: `(${expression} IS NULL OR ${expression} = '')`, direction },
      { expression: `nullif(${expression}, '')`, direction },
    ];
  });
  const last = sort[sort.length - 1];
  if (!sort.some((key) => key.field === 'id')) {
    keys.push({ expression: columns.expression('id'), direction: last?.direction === 'desc' ? 'DESC' : 'ASC' });
  }
  return keys;
}

export function orderToSql(sort: SortKey[], columns: SqliteColumns): string {
  return orderKeys(sort, columns)
    .map((key) => `${key.expression} ${key.direction}`)
    .join(', ');
}

/** SELECT of the documents a query asks for, in order, paged. */
export function selectToSql(query: Query, columns: SqliteColumns, select = 'doc'): SqlFragment {
  const side = columns.sideOnly(query.where ?? [], query.sort ?? []);
  if (side) return sideSelectToSql(query, side, columns, select);
  const where = whereToSql(query.where ?? [], columns);
  let sql = `SELECT ${select} FROM ${columns.source} WHERE ${where.sql} ORDER BY ${orderToSql(query.sort ?? [], columns)}`;
  const params = [...where.params];
  if (query.limit !== undefined || query.offset !== undefined) {
    sql += ' LIMIT ? OFFSET ?';
    params.push(query.limit ?? -1, query.offset ?? 0);
  }
  return { sql, params };
}

/**
 * A page whose conditions and order the side table answers (sqlite-dynamic-slots.ts): ordered and
 * cut among the side rows, so only the page's documents are read. `counted`: each row also holds
 * the number of all matches, from the same pass (none when the page is empty).
 */
function sideSelectToSql(query: Query, side: SqliteColumns, columns: SqliteColumns, select: string, counted = false): SqlFragment {
  const where = whereToSql(query.where ?? [], side);
  const keys = orderKeys(query.sort ?? [], side);
  const picked = [...keys.map((key, i) => `${key.expression} AS k${i}`), ...(counted ? ['count(*) OVER () AS total'] : [])].join(', ');
  const order = keys.map((key) => `${key.expression} ${key.direction}`).join(', ');
  const page = `SELECT ${columns.sideRow} AS row, ${picked} FROM ${side.source} WHERE ${where.sql} ORDER BY ${order} LIMIT ? OFFSET ?`;
  const outer = counted ? `${select}, page.total` : select;
  return {
    sql: `SELECT ${outer} FROM ${columns.table} JOIN (${page}) AS page ON ${columns.table}.rowid = page.row ORDER BY ${keys.map((key, i) => `page.k${i} ${key.direction}`).join(', ')}`,
    params: [...where.params, query.limit ?? -1, query.offset ?? 0],
  };
}

/** The page's documents, each with the number of all matches, when the side table alone answers the query. */
export function countedSideSelectToSql(query: Query, columns: SqliteColumns): SqlFragment | undefined {
  const side = columns.sideOnly(query.where ?? [], query.sort ?? []);
  return side ? sideSelectToSql(query, side, columns, 'doc', true) : undefined;
}

/**
 * A page of a side-table query ordered first by a slot, walking that slot's index: at most
 * `budget` of the workspace's side rows holding a value are read in the page's order, and those
 * meeting the conditions kept. Unset values sorted high come first in a descending order: those
 * meeting the conditions are all read first (their number is what it costs). A short page means
 * either the end of the matches or a budget spent before the page filled. Undefined when the side
 * table does not answer the query or its first key has no slot index; else the walk for a budget.
 */
export function sideWalkToSql(query: Query, columns: SqliteColumns): ((budget: number) => SqlFragment) | undefined {
  const where = query.where ?? [];
  const sort = query.sort ?? [];
  const side = columns.sideOnly(where, sort);
  const first = sort[0];
  const index = first ? side?.slotIndex(first.field) : undefined;
  const scope = where.find((c) => isFieldCondition(c) && c.field === 'workspaceId' && c.op === 'eq');
  if (!side || !first || !index || !scope || !isFieldCondition(scope) || scope.op !== 'eq' || typeof scope.value !== 'string') {
    return undefined;
  }
  const workspaceId: string = scope.value;
  const hit = whereToSql(where, side);
  const keys = orderKeys(sort, side);
  const value = side.expression(first.field);
  const workspace = `${side.expression('workspaceId')} = ?`;
  const picked = `${columns.sideRow} AS row, ${keys.map((key, i) => `${key.expression} AS k${i}`).join(', ')}`;
  const byKeys = (from: number) =>
    keys
      .slice(from)
      .map((key) => `${key.expression} ${key.direction}`)
      .join(', ');
  // Unset sorted high is two keys (its test, then the value): the walk orders set values by the slot itself, as its index does.
  const unsetHigh = first.unset === 'high';
  const direction = keys[0]!.direction;
  const walkOrder = unsetHigh ? [`${value} ${direction}`, byKeys(2)].filter(Boolean).join(', ') : byKeys(0);
  const setValues = unsetHigh ? ` AND ${value} IS NOT NULL AND ${value} <> ''` : '';
  const walk =
    `SELECT ${picked}, (${hit.sql}) AS hit FROM ${side.source} INDEXED BY ${index}` +
    ` WHERE ${workspace}${setValues} ORDER BY ${walkOrder} LIMIT ?`;
  const limit = query.limit ?? -1;
  const offset = query.offset ?? 0;
  // The outer ORDER BYs restate the walk's order, which a subquery's rows need not keep.
  const order = keys.map((key, i) => `page.k${i} ${key.direction}`).join(', ');
  const select = (inner: string) =>
    `SELECT doc FROM ${columns.table} JOIN (SELECT * FROM (${inner}) AS page WHERE hit ORDER BY ${order} LIMIT ? OFFSET ?) AS page` +
    ` ON ${columns.table}.rowid = page.row ORDER BY ${order}`;
  if (!(unsetHigh && direction === 'DESC')) {
    return (budget) => ({ sql: select(walk), params: [...hit.params, workspaceId, budget, limit, offset] });
  }
  // Null and '' read as two ranges of the slot's index (their OR would have the planner scan).
  const unsetAs = (test: string) =>
    `SELECT ${picked}, 1 AS hit FROM ${side.source} INDEXED BY ${index} WHERE ${workspace} AND ${test} AND (${hit.sql})`;
  const unsetOrder = keys.map((key, i) => `k${i} ${key.direction}`).join(', ');
  const unset = `SELECT * FROM (${unsetAs(`${value} IS NULL`)} UNION ALL ${unsetAs(`${value} = ''`)}) ORDER BY ${unsetOrder} LIMIT ?`;
  const unsetParams = [workspaceId, ...hit.params];
  return (budget) => ({
    sql: select(`SELECT * FROM (${unset}) UNION ALL SELECT * FROM (${walk})`),
    params: [...unsetParams, ...unsetParams, offset + (limit < 0 ? budget : limit), ...hit.params, workspaceId, budget, limit, offset],
  });
}

/** Whether a query searches text anywhere in its conditions (see SqliteStoreAdapter.find). */
export function searchesText(where: Condition[]): boolean {
  return where.some((c) => ('or' in c ? c.or.some(searchesText) : 'not' in c ? searchesText(c.not) : c.op === 'contains_text'));
}

/** The rowids of up to `cap` matching documents, in no order, so the planner may pick a covering index. */
export function matchingRowidsToSql(where: Condition[], columns: SqliteColumns, cap: number): SqlFragment {
  const fragment = whereToSql(where, columns);
  return { sql: `SELECT rowid FROM ${columns.source} WHERE ${fragment.sql} LIMIT ?`, params: [...fragment.params, cap] };
}

/** A search of one workspace through a field's text index, with the query's other conditions. */
export interface WorkspaceTextSearch {
  workspaceId: string;
  field: string;
  needle: string;
  index: string;
  /** The index's table of lowered values (see sqlite-text-index.ts), quoted. */
  values: string;
  /** The conditions besides the text (the workspace's among them). */
  rest: Condition[];
  /** Whether the workspace is the only other condition: the index alone then answers the query. */
  alone: boolean;
}

/** The query's search when it is one workspace's, on an indexed field (a needle of any length: see textRowidsToSql). */
export function workspaceTextSearch(where: Condition[], columns: SqliteColumns): WorkspaceTextSearch | undefined {
  if (columns.expression('workspaceId') !== 'workspace_id') return undefined;
  const texts = where.filter((c) => isFieldCondition(c) && c.op === 'contains_text');
  const scope = where.find((c) => isFieldCondition(c) && c.field === 'workspaceId' && c.op === 'eq');
  const text = texts[0];
  if (
    texts.length !== 1 ||
    !text ||
    !isFieldCondition(text) ||
    text.op !== 'contains_text' ||
    !scope ||
    !isFieldCondition(scope) ||
    scope.op !== 'eq'
  )
    return undefined;
  const index = columns.textIndex(text.field);
  if (!index || typeof text.value !== 'string' || typeof scope.value !== 'string') return undefined;
  const values = quoteIdentifier(textValuesName(textIndexName(columns.collection, text.field)));
  const rest = where.filter((c) => c !== text);
  return { workspaceId: scope.value, field: text.field, needle: text.value, index, values, rest, alone: rest.length === 1 };
}

/** Whether FTS5 can take the needle: it needs a trigram, and its query parser ends a string at a NUL. */
function fitsTrigrams(needle: string): boolean {
  return [...needle].length >= TRIGRAM_CHARACTERS && !needle.includes('\0');
}

/**
 * Counting phrase matches in FTS5 reads every entry of the needle's trigrams' doclists and the
 * workspace's: for 100,000 matches about 21 ms, against about 7 ms to scan 100,000 values, and
 * 5 ms for 11,000 matches. So a needle that this share of a sample of the workspace's values
 * holds (the first ones: the choice is of speed only, the count is exact either way) is counted
 * by the scan.
 */
const SCAN_COUNT_SAMPLE = 1000;
const SCAN_COUNT_SHARE = { held: 1, of: 4 };

/** How many of the workspace's documents hold the needle, counted in the text index alone. */
export function textCountToSql(search: WorkspaceTextSearch): SqlFragment {
  const { index, values, workspaceId, needle } = search;
  const scan = valuesCountToSql(values, workspaceId, needle);
  if (!fitsTrigrams(needle)) return scan;
  const { held, of } = SCAN_COUNT_SHARE;
  const common = valuesShareToSql(values, workspaceId, needle, SCAN_COUNT_SAMPLE, held, of);
  const phrases = `SELECT count(*) FROM ${index} WHERE ${index} MATCH ${textMatchQuery(true)}`;
  return {
    // CASE runs only the branch it takes.
    sql: `SELECT CASE WHEN ${common.sql} THEN (${scan.sql}) ELSE (${phrases}) END`,
    params: [...common.params, ...scan.params, needle, workspaceId],
  };
}

/**
 * The rowids of up to `cap` of the workspace's documents that hold the needle, from the text
 * index alone: its trigrams, or for a needle they cannot take, its values table.
 */
export function textRowidsToSql(search: WorkspaceTextSearch, cap: number): SqlFragment {
  if (!fitsTrigrams(search.needle)) return valuesRowidsToSql(search.values, search.workspaceId, search.needle, cap);
  const { index } = search;
  return {
    sql: `SELECT rowid FROM ${index} WHERE ${index} MATCH ${textMatchQuery(true)} LIMIT ?`,
    params: [search.needle, search.workspaceId, cap],
  };
}

/**
 * The page of a search with many matches, walking the sort index: at most `budget` entries that
 * meet the other conditions are read, in order, and those whose field holds the needle kept. A
 * short page means either the end of the matches or a budget spent before the page filled.
 */
export function walkToSql(query: Query, search: WorkspaceTextSearch, budget: number, columns: SqliteColumns): SqlFragment {
  const rest = whereToSql(search.rest, columns);
  const keys = orderKeys(query.sort ?? [], columns);
  const params: SqlValue[] = [];
  const hit = scanText(columns.expression(search.field), search.needle, params);
  const sortColumns = keys.map((key, i) => `${key.expression} AS s${i}`).join(', ');
  const inner =
    `SELECT doc, ${sortColumns}, (${hit}) AS hit FROM ${columns.source} WHERE ${rest.sql}` +
    ` ORDER BY ${keys.map((key) => `${key.expression} ${key.direction}`).join(', ')} LIMIT ?`;
  // The outer ORDER BY restates the walk's order, which a subquery's rows need not keep.
  const sql = `SELECT doc FROM (${inner}) WHERE hit ORDER BY ${keys.map((key, i) => `s${i} ${key.direction}`).join(', ')} LIMIT ? OFFSET ?`;
  return { sql, params: [...params, ...rest.params, budget, query.limit ?? -1, query.offset ?? 0] };
}

/** The documents among these rowids (a JSON array) that meet the search's other conditions, in order, paged. */
export function selectSearchRowidsToSql(
  query: Query,
  search: WorkspaceTextSearch,
  rowidsJson: string,
  columns: SqliteColumns,
): SqlFragment {
  // The rowids are the workspace's already; its condition would only tempt the planner to its index.
  const rest = whereToSql(search.alone ? [] : search.rest, columns);
  const sql =
    `SELECT doc FROM ${columns.source} WHERE rowid IN (SELECT value FROM json_each(?)) AND ${rest.sql}` +
    ` ORDER BY ${orderToSql(query.sort ?? [], columns)} LIMIT ? OFFSET ?`;
  return { sql, params: [rowidsJson, ...rest.params, query.limit ?? -1, query.offset ?? 0] };
}

/** How many of these rowids (a JSON array) meet the search's other conditions. */
export function countSearchRowidsToSql(search: WorkspaceTextSearch, rowidsJson: string, columns: SqliteColumns): SqlFragment {
  const rest = whereToSql(search.alone ? [] : search.rest, columns);
  return {
    sql: `SELECT count(*) FROM ${columns.source} WHERE rowid IN (SELECT value FROM json_each(?)) AND ${rest.sql}`,
    params: [rowidsJson, ...rest.params],
  };
}

/** The documents with these rowids (a JSON array), in the query's order, paged. */
export function selectRowidsToSql(query: Query, rowidsJson: string, columns: SqliteColumns): SqlFragment {
  const sql =
    `SELECT doc FROM ${columns.source} WHERE rowid IN (SELECT value FROM json_each(?))` +
    ` ORDER BY ${orderToSql(query.sort ?? [], columns)} LIMIT ? OFFSET ?`;
  return { sql, params: [rowidsJson, query.limit ?? -1, query.offset ?? 0] };
}

/**
 * The documents of a query that are among these rowids (a JSON array), in order, paged: the sort
 * index is walked (`+rowid` keeps the planner from looking the rowids up and sorting them all)
 * and each entry kept when its rowid is listed, so a page of common matches stops early. The
 * query's one top-level text condition (the workspace search the rowids answer) is left out: the
 * rowids already meet it. Text tests inside `or` and `not` groups stay.
 */
export function selectAmongRowidsToSql(query: Query, rowidsJson: string, columns: SqliteColumns): SqlFragment {
  const where = whereToSql(
    (query.where ?? []).filter((c) => !(isFieldCondition(c) && c.op === 'contains_text')),
    columns,
  );
  const sql =
    `SELECT doc FROM ${columns.source} WHERE ${where.sql} AND +rowid IN (SELECT value FROM json_each(?))` +
    ` ORDER BY ${orderToSql(query.sort ?? [], columns)} LIMIT ? OFFSET ?`;
  return { sql, params: [...where.params, rowidsJson, query.limit ?? -1, query.offset ?? 0] };
}

export function countToSql(where: Condition[], columns: SqliteColumns): SqlFragment {
  const kept = workspaceCountSql(where, columns);
  if (kept) return kept;
  const side = columns.sideOnly(where);
  if (side) {
    const fragment = whereToSql(where, side);
    return { sql: `SELECT count(*) FROM ${side.source} WHERE ${fragment.sql}`, params: fragment.params };
  }
  const fragment = whereToSql(where, columns);
  return { sql: `SELECT count(*) FROM ${columns.source} WHERE ${fragment.sql}`, params: fragment.params };
}

/**
 * How many documents meeting `where` have a rowid above `since` (those inserted since a kept
 * count: kept-counts.ts). The table's rows are read from there on, never an index of the
 * conditions, which would walk every earlier match too.
 */
export function countSinceToSql(where: Condition[], columns: SqliteColumns, since: number): SqlFragment {
  const side = columns.sideOnly(where);
  const over = side ?? columns;
  const fragment = whereToSql(where, over);
  const row = side ? side.sideRow : `${columns.table}.rowid`;
  return {
    sql:
      `SELECT count(*) FROM (SELECT rowid AS fresh FROM ${columns.table} NOT INDEXED WHERE rowid > ?) AS since` +
      ` CROSS JOIN ${over.source} WHERE ${row} = since.fresh AND ${fragment.sql}`,
    params: [since, ...fragment.params],
  };
}
