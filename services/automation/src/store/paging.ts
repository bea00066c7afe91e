/** One page of a workspace's documents, through the store's one paging module (libs/store list-cursor.ts). */
import { listPage, type CollectionDefinition, type Condition, type DocumentStore, type SortKey, type StoredDocument } from '@crm/store';
import { pageBounds, type Page, type Paging } from '../domain/paging';

/** Newest first by `sort` unless told otherwise. */
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
