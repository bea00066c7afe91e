/**
 * How every automation list pages: `offset` and `limit` (default 20, at most 100), or a cursor
 * from an earlier page (the store walks it: store/paging.ts).
 */
import { DomainError } from '@crm/observability';
import { PAGING } from '@crm/vocabulary';

export interface Paging {
  offset?: number;
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  /** Matches over every page; null on a cursor page, which counts nothing. */
  total: number | null;
  items: T[];
  /** The next page's cursor; null on the last page. */
  nextCursor?: string | null;
}

export function pageBounds(offset: number, limit: number): { offset: number; limit: number } {
  if (offset < 0 || limit < 0) throw DomainError.invalid('offset and limit must not be negative.');
  return { offset, limit: Math.min(limit || PAGING.defaultLimit, PAGING.maxLimit) };
}
