/**
 * Reads and the one write path (commit) of the records service. Thin: it turns list criteria into
 * the store's query model and answers lookups; the rules live in domain/, the orchestration in
 * application/.
 */
import {
  listPage,
  type CollectionDefinition,
  type Condition,
  type DocumentStore,
  type ScopedStore,
  type StoredDocument,
  type WriteOp,
  type ListPage,
} from '@crm/store';
import type { Ordering, Page } from '../domain/list-rules';
import { OPEN_STAGES } from '../domain/opportunity-rules';
import type { AccountDocument, ContactDocument } from '../domain/model';
import { accounts, batchResults, contacts, opportunities, type BatchResultDocument } from './collections';

export interface ListCriteria {
  where: Condition[];
  /**
   * A literal, already lower-cased, that the record's `searchText` must contain: one substring test
   * on one field, which the collections declare for text search (SQLite: a trigram index).
   */
  search?: string;
  ordering: Ordering;
  page: Page;
  /** Walk on from this cursor (a `nextCursor` of an earlier page of the same list) instead of `page.offset`. */
  cursor?: string;
}

export type ListResult<T> = ListPage<T>;

export class RecordsRepository {
  constructor(readonly store: DocumentStore) {}

  in(workspaceId: string): ScopedStore {
    return this.store.forWorkspace(workspaceId);
  }

  get<T extends StoredDocument>(workspaceId: string, collection: CollectionDefinition<T>, id: string): Promise<T | null> {
    if (typeof id !== 'string' || id.length === 0) return Promise.resolve(null);
    return this.in(workspaceId).get(collection, id);
  }

  /** Which of `ids` name a document of the workspace. */
  async existing(workspaceId: string, collection: CollectionDefinition<any>, ids: string[]): Promise<Set<string>> {
    const wanted = ids.filter((id) => typeof id === 'string' && id.length > 0);
    if (wanted.length === 0) return new Set();
    const found = await this.in(workspaceId).getMany(collection, wanted);
    return new Set(found.map((d) => d.id));
  }

  /** One page by offset (with the total) or after a cursor (without), with the next page's cursor. */
  list<T extends StoredDocument>(workspaceId: string, collection: CollectionDefinition<T>, criteria: ListCriteria): Promise<ListResult<T>> {
    const where = [...criteria.where];
    if (criteria.search) where.push({ field: 'searchText', op: 'contains_text', value: criteria.search });
    const sort = { field: criteria.ordering.field, direction: criteria.ordering.direction };
    return listPage(this.in(workspaceId), collection, { where, sort, ...criteria.page, cursor: criteria.cursor });
  }

  commit(workspaceId: string, ops: WriteOp[]): Promise<void> {
    return this.in(workspaceId).commit(ops);
  }

  accountsById(workspaceId: string, ids: string[]): Promise<AccountDocument[]> {
    const wanted = [...new Set(ids.filter((id) => id))];
    return wanted.length === 0 ? Promise.resolve([]) : this.in(workspaceId).getMany(accounts, wanted);
  }

  contactCount(workspaceId: string, accountId: string): Promise<number> {
    return this.in(workspaceId).count(contacts, [{ field: 'accountId', op: 'eq', value: accountId }]);
  }

  openOpportunityCount(workspaceId: string, accountId: string): Promise<number> {
    return this.in(workspaceId).count(opportunities, [
      { field: 'accountId', op: 'eq', value: accountId },
      { field: 'stage', op: 'in', values: [...OPEN_STAGES] },
    ]);
  }

  /** Contacts whose lower-cased email is one of `keys`, oldest first (the first one is "the" match). */
  /** Oldest first. Sorted here, not in the query: asked to sort, SQLite walks the workspace's createdAt index instead of the emailKey one. */
  async contactsByEmailKeys(workspaceId: string, keys: string[]): Promise<ContactDocument[]> {
    if (keys.length === 0) return [];
    const found = await this.in(workspaceId).find(contacts, { where: [{ field: 'emailKey', op: 'in', values: keys }] });
    return found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  batchResult(workspaceId: string, id: string): Promise<BatchResultDocument | null> {
    return this.in(workspaceId).get(batchResults, id);
  }
}
