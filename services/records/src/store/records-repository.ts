/**
 * Reads and the one write path (commit) of the records service. Thin: it turns list criteria into
 * the store's query model and answers lookups; the rules live in domain/, the orchestration in
 * application/.
 */
import {
  afterCursor,
  CursorError,
  decodeCursor,
  encodeCursor,
  type CollectionDefinition,
  type Condition,
  type DocumentStore,
  type ScopedStore,
  type StoredDocument,
  type WriteOp,
} from '@crm/store';
import { DomainError } from '@crm/observability';
import type { Ordering, Page } from '../domain/list-rules';
import { OPEN_STAGES } from '../domain/opportunity-rules';
import type { AccountDocument, ContactDocument } from '../domain/model';
import { accounts, batchResults, contacts, opportunities, type BatchResultDocument } from './collections';

const CURSOR_REFUSED = 'cursor was not made by this list with these filters and ordering (send them again with it, unchanged).';

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

export interface ListResult<T> {
  /** Matches over every page; null on a cursor page, which counts nothing. */
  total: number | null;
  items: T[];
  /** Where the next page starts; null on the last page. */
  nextCursor?: string | null;
}

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

  /**
   * One page by offset (with the total) or, given a cursor, the page after it (without a total):
   * either way with the cursor of the page after this one.
   */
  async list<T extends StoredDocument>(
    workspaceId: string,
    collection: CollectionDefinition<T>,
    criteria: ListCriteria,
  ): Promise<ListResult<T>> {
    const where = [...criteria.where];
    if (criteria.search) where.push({ field: 'searchText', op: 'contains_text', value: criteria.search });
    const sort = { field: criteria.ordering.field, direction: criteria.ordering.direction };
    const scope = JSON.stringify([collection.name, sort, where]);
    const cursorAfter = (items: T[]) => {
      const last = items[items.length - 1] as (T & Record<string, unknown>) | undefined;
      return last ? encodeCursor(scope, { value: (last[sort.field] ?? null) as string | number | null, id: last.id }) : null;
    };
    const { limit } = criteria.page;
    if (criteria.cursor === undefined) {
      const page = await this.in(workspaceId).findPage(collection, { where, sort: [sort], offset: criteria.page.offset, limit });
      const more = criteria.page.offset + page.items.length < page.total;
      return { ...page, nextCursor: more ? cursorAfter(page.items) : null };
    }
    let position;
    try {
      position = decodeCursor(scope, criteria.cursor);
    } catch (error) {
      if (error instanceof CursorError || error instanceof SyntaxError) throw DomainError.invalid(CURSOR_REFUSED);
      throw error;
    }
    // One more than a page tells whether there is a next one, without counting.
    const found = await this.in(workspaceId).find(collection, {
      where: [...where, afterCursor(sort, position)],
      sort: [sort],
      limit: limit + 1,
    });
    const items = found.slice(0, limit);
    return { total: null, items, nextCursor: found.length > limit ? cursorAfter(items) : null };
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
