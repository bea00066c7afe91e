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

export function encodeCursor(scope: string, position: CursorPosition): string {
  const payload = Buffer.from(JSON.stringify([position.value, position.id])).toString('base64url');
  return `${payload}.${checksum(scope, payload)}`;
}

/** The position a cursor names; CursorError when this list (`scope`) did not make it. */
export function decodeCursor(scope: string, token: string): CursorPosition {
  const [payload, sum, extra] = token.split('.');
  if (!payload || !sum || extra !== undefined || token.length > 2_000 || checksum(scope, payload) !== sum) {
    throw new CursorError('cursor was not made by this list with these filters and ordering.');
  }
  const decoded: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  const [value, id] = Array.isArray(decoded) ? decoded : [];
  const scalar = value === null || ['string', 'number', 'boolean'].includes(typeof value);
  if (!scalar || typeof id !== 'string') throw new CursorError('cursor was not made by this list with these filters and ordering.');
  return { value, id };
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

export interface ListQuery {
  where?: Condition[];
  sort: SortKey;
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
  const { sort, limit } = query;
  const scope = JSON.stringify([query.owner, collection.name, sort, where]);
  const cursorAfter = (items: T[]) => {
    const last = items[items.length - 1] as (T & Record<string, unknown>) | undefined;
    return last ? encodeCursor(scope, { value: (last[sort.field] ?? null) as Scalar, id: last.id }) : null;
  };
  if (query.cursor === undefined) {
    const page = await store.findPage(collection, { where, sort: [sort], offset: query.offset, limit });
    const more = query.offset + page.items.length < page.total;
    return { ...page, nextCursor: more ? cursorAfter(page.items) : null };
  }
  const position = cursorPosition(scope, query.cursor);
  const found = await store.find(collection, { where: [...where, after(sort, position)], sort: [sort], limit: limit + 1 });
  const items = found.slice(0, limit);
  return { total: null, items, nextCursor: found.length > limit ? cursorAfter(items) : null };
}
