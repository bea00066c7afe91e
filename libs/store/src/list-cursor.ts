/**
 * Cursor paging (keyset): a cursor names the last item of a page by its sort value and id, and the
 * next page is what sorts after it, so inserts and deletes between pages skip or repeat nothing
 * (offsets do both). Both adapters sort ties by id in the last key's direction and put nulls first
 * ascending, last descending; `after` follows the same order.
 *
 * To clients a cursor is opaque: base64url JSON with a checksum over it and the list's `scope` (its
 * ordering and filters), so a cursor edited, made up, or sent with other filters is refused.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '@crm/observability';
import type { CollectionDefinition, Condition, Scalar, ScopedStore, SortKey, StoredDocument } from './port';

export interface CursorPosition {
  /** The sort field's value on the last item (null when it has none). */
  value: Scalar;
  id: string;
}

export class CursorError extends Error {
  override readonly name = 'CursorError';
}

function checksum(scope: string, payload: string): string {
  return createHash('sha256').update(`${scope}\n${payload}`).digest('base64url').slice(0, 16);
}

/** A position under a sort of several keys: the last item's value of each key, and its id. */
export interface KeysPosition {
  values: Scalar[];
  id: string;
}

export function encodeCursor(scope: string, position: CursorPosition): string {
  return encodeKeysCursor(scope, { values: [position.value], id: position.id });
}

export function encodeKeysCursor(scope: string, position: KeysPosition): string {
  const payload = Buffer.from(JSON.stringify([...position.values, position.id])).toString('base64url');
  return `${payload}.${checksum(scope, payload)}`;
}

/** The position a cursor names; CursorError when this list (`scope`) did not make it. */
export function decodeCursor(scope: string, token: string): CursorPosition {
  const { values, id } = decodeKeysCursor(scope, token, 1);
  return { value: values[0] as Scalar, id };
}

/** The position of a cursor made under a sort of `keys` keys; CursorError when this list (`scope`) did not make it. */
export function decodeKeysCursor(scope: string, token: string, keys: number): KeysPosition {
  const refused = () => new CursorError('cursor was not made by this list with these filters and ordering.');
  const [payload, sum, extra] = token.split('.');
  if (!payload || !sum || extra !== undefined || token.length > 2_000 || checksum(scope, payload) !== sum) throw refused();
  const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (!Array.isArray(decoded) || decoded.length !== keys + 1) throw refused();
  const values = decoded.slice(0, keys) as unknown[];
  const id: unknown = decoded[keys];
  const scalar = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (!values.every(scalar) || typeof id !== 'string') throw refused();
  return { values: values as Scalar[], id };
}

/** What sorts after `position` under `sort` (one key; ties by id). */
export function after(sort: SortKey, position: CursorPosition): Condition {
  const { field, direction } = sort;
  const { value, id } = position;
  const idAfter: Condition = { field: 'id', op: direction === 'asc' ? 'gt' : 'lt', value: id };
  if (value === null) {
    // Nulls come first ascending (then every non-null), last descending (only later nulls follow).
    return direction === 'asc'
      ? { or: [[{ field, op: 'ne', value: null }], [{ field, op: 'eq', value: null }, idAfter]] }
      : { or: [[{ field, op: 'eq', value: null }, idAfter]] };
  }
  const beyond: Condition[] = [{ field, op: direction === 'asc' ? 'gt' : 'lt', value: value as string | number }];
  const tie: Condition[] = [{ field, op: 'eq', value }, idAfter];
  return { or: direction === 'asc' ? [beyond, tie] : [beyond, tie, [{ field, op: 'eq', value: null }]] };
}

/**
 * The conditions of "strictly after `value`" on one key, as OR groups: empty when nothing can
 * follow it. Where unset values sit follows the key's `unset` (low: first ascending).
 */
function beyond(key: SortKey, value: Scalar): Condition[][] {
  const { field, direction } = key;
  const high = key.unset === 'high';
  const unsetAtEnd = high === (direction === 'asc');
  // Under `high`, absent, null and '' are one unset value (see SortKey).
  const isUnset = (unset: boolean): Condition =>
    high ? { field, op: 'empty', value: unset } : { field, op: unset ? 'eq' : 'ne', value: null };
  if (value === null) return unsetAtEnd ? [] : [[isUnset(false)]];
  const past: Condition[] = [{ field, op: direction === 'asc' ? 'gt' : 'lt', value: value as string | number }];
  if (high) past.push(isUnset(false));
  return unsetAtEnd ? [past, [isUnset(true)]] : [past];
}

/** A sort key's value on a document as a cursor keeps it: under `high`, '' is unset (null). */
function sortValue(key: SortKey, value: unknown): Scalar {
  if (value === undefined || (key.unset === 'high' && value === '')) return null;
  return value as Scalar;
}

/**
 * What sorts after `position` under several keys (ties by id in the last key's direction), as
 * disjoint groups of conditions in the sort's order: first the items equal on every key with a
 * later id, then, from the last key to the first, the items equal on the keys before it and beyond
 * it on this one. Each group is one index range; listPage walks them one after another because
 * SQLite cannot walk an index in order through their OR, and scans every earlier row instead.
 */
export function afterKeysInOrder(sort: SortKey[], position: KeysPosition): Condition[][] {
  const equal = (key: SortKey, i: number): Condition => {
    const value = position.values[i] ?? null;
    return value === null && key.unset === 'high' ? { field: key.field, op: 'empty', value: true } : { field: key.field, op: 'eq', value };
  };
  const last = sort[sort.length - 1];
  const groups: Condition[][] = [[...sort.map(equal), { field: 'id', op: last?.direction === 'desc' ? 'lt' : 'gt', value: position.id }]];
  for (let i = sort.length - 1; i >= 0; i--) {
    const before = sort.slice(0, i).map(equal);
    for (const group of beyond(sort[i] as SortKey, position.values[i] ?? null)) groups.push([...before, ...group]);
  }
  return groups;
}

/** What sorts after `position` under several keys, as one condition. */
export function afterKeys(sort: SortKey[], position: KeysPosition): Condition {
  return { or: afterKeysInOrder(sort, position) };
}

export interface ListQuery {
  where?: Condition[];
  /** One key, or up to a few (ties by id in the last one's direction). */
  sort: SortKey | SortKey[];
  /** Count the matches on cursor pages too (they count nothing otherwise). */
  countCursorPages?: boolean;
  /**
   * What names this list's criteria for its cursors, when `where` is not it: conditions resolved
   * at each request (ids of related records) would refuse a cursor once they change.
   */
  criteria?: unknown;
  offset: number;
  limit: number;
  /** A `nextCursor` of an earlier page of this list: the page after it, instead of `offset`. */
  cursor?: string;
  /** Whose list this is (the workspace): a cursor made for another owner is refused. */
  owner: string;
}

export interface ListPage<T> {
  /** Matches over every page; null on a cursor page, which counts nothing. */
  total: number | null;
  items: T[];
  /** Where the next page starts; null on the last page. */
  nextCursor: string | null;
}

const CURSOR_REFUSED = 'cursor was not made by this list with these filters and ordering (send them again with it, unchanged).';

/** The position a client's cursor names; invalid_argument when this list (`scope`) did not make it. */
export function cursorPosition(scope: string, token: string): CursorPosition {
  try {
    return decodeCursor(scope, token);
  } catch (error) {
    if (error instanceof CursorError || error instanceof SyntaxError) throw DomainError.invalid(CURSOR_REFUSED);
    throw error;
  }
}

/**
 * A list endpoint's page: by offset, counted, or after a cursor, not counted (one document more
 * than the page tells whether another follows); either way with the next page's cursor. A cursor
 * this list did not make is an invalid_argument.
 */
export async function listPage<T extends StoredDocument>(
  store: ScopedStore,
  collection: CollectionDefinition<T>,
  query: ListQuery,
): Promise<ListPage<T>> {
  const where = query.where ?? [];
  const { limit } = query;
  const sort = sortKeys(query);
  const scope = listScope(collection, query);
  const cursorAfter = (items: T[]) => {
    const last = items[items.length - 1];
    return last ? listCursor(scope, sort, last) : null;
  };
  if (query.cursor === undefined) {
    const page = await store.findPage(collection, { where, sort, offset: query.offset, limit });
    const more = query.offset + page.items.length < page.total;
    return { ...page, nextCursor: more ? cursorAfter(page.items) : null };
  }
  const position = listPosition(scope, query.cursor, sort.length);
  const [found, total] = await Promise.all([
    findAfter(store, collection, { where, sort, limit: limit + 1 }, position),
    query.countCursorPages ? store.count(collection, where) : Promise.resolve(null),
  ]);
  const items = found.slice(0, limit);
  return { total, items, nextCursor: found.length > limit ? cursorAfter(items) : null };
}

/** A list query's sort keys, as a list. */
export function sortKeys(query: Pick<ListQuery, 'sort'>): SortKey[] {
  return Array.isArray(query.sort) ? query.sort : [query.sort];
}

/** What a list's cursors are checked against: its owner, collection, ordering and criteria. */
export function listScope(collection: CollectionDefinition<any>, query: Pick<ListQuery, 'owner' | 'sort' | 'criteria' | 'where'>): string {
  const sort = sortKeys(query);
  // One key keeps the scope (and so the cursors) it always had.
  return JSON.stringify([query.owner, collection.name, Array.isArray(query.sort) ? sort : sort[0], query.criteria ?? query.where ?? []]);
}

/** The cursor naming `document` as the last item of a page of the list `scope`. */
export function listCursor(scope: string, sort: SortKey[], document: StoredDocument): string {
  const fields = document as StoredDocument & Record<string, unknown>;
  return encodeKeysCursor(scope, { values: sort.map((key) => sortValue(key, valueAt(fields, key.field))), id: document.id });
}

/** The position a client's cursor names; invalid_argument when the list `scope` did not make it. */
export function listPosition(scope: string, token: string, keys: number): KeysPosition {
  return keysPosition(scope, token, keys);
}

/** Up to `limit` documents of `where` that sort after `position`, in order (each range of afterKeysInOrder in turn). */
export async function findAfter<T extends StoredDocument>(
  store: ScopedStore,
  collection: CollectionDefinition<T>,
  query: { where: Condition[]; sort: SortKey[]; limit: number },
  position: KeysPosition,
): Promise<T[]> {
  const found: T[] = [];
  for (const group of afterKeysInOrder(query.sort, position)) {
    found.push(
      ...(await store.find(collection, { where: [...query.where, ...group], sort: query.sort, limit: query.limit - found.length })),
    );
    if (found.length >= query.limit) break;
  }
  return found;
}

/** A document's value at a field path (`a.b`), undefined when a step is missing. */
function valueAt(document: Record<string, unknown>, field: string): unknown {
  let value: unknown = document;
  for (const step of field.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

function keysPosition(scope: string, token: string, keys: number): KeysPosition {
  try {
    return decodeKeysCursor(scope, token, keys);
  } catch (error) {
    if (error instanceof CursorError || error instanceof SyntaxError) throw DomainError.invalid(CURSOR_REFUSED);
    throw error;
  }
}
