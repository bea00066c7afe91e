import type { Page, Paging } from '../domain/paging';

/** A list request's paging, an empty cursor meaning none. */
export function pagingOf(r: { offset?: number; limit?: number; cursor?: string }): Paging {
  return { offset: r.offset, limit: r.limit, ...(r.cursor ? { cursor: r.cursor } : {}) };
}

/** A page's total (0 on a cursor page, which counts nothing) and next cursor ('' on the last page). */
export function pageFields(page: Page<unknown>): { total: number; nextCursor: string } {
  return { total: page.total ?? 0, nextCursor: page.nextCursor ?? '' };
}
