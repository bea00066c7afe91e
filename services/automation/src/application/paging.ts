/**
 * How every automation list pages: `offset` and `limit` (default 20, at most 100), or a cursor
 * from an earlier page, through the store's one paging module (libs/store list-cursor.ts).
 */
import { DomainError } from '@crm/observability';
import { PAGING } from '@crm/vocabulary';
import { listPage, type CollectionDefinition, type Condition, type DocumentStore, type SortKey, type StoredDocument } from '@crm/store';

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

/** One page of a workspace's documents, newest first by `sort` unless told otherwise. */
export function workspacePage<T extends StoredDocument>(
  store: DocumentStore,
  workspaceId: string,
  collection: CollectionDefinition<T>,
  query: { where?: Condition[]; sort: SortKey },
  paging: Paging,
): Promise<Page<T>> {
  const { offset, limit } = pageBounds(paging.offset ?? 0, paging.limit ?? 0);
  return listPage(store.forWorkspace(workspaceId), collection, { ...query, offset, limit, cursor: paging.cursor, owner: workspaceId });
}
