/**
 * Reads and the one write path (commit) of the records service. Thin: it turns list criteria into
 * the store's query model and answers lookups by kind of record, so application/ never names a
 * collection; the rules live in domain/, the orchestration in application/.
 */
import {
  listPage,
  type AggregateResult,
  type CollectionDefinition,
  type Condition,
  type DocumentStore,
  type ScopedStore,
  type StoredDocument,
  type ListPage,
} from '@crm/store';
import type { Ordering, Page } from '../domain/list-rules';
import type { AggregateSpec } from '../domain/record-aggregate';
import type { FilterNode, OrderingKey } from '../domain/record-filter';
import { OPEN_STAGES } from '../domain/opportunity-rules';
import type {
  AccountDocument,
  ActivityDocument,
  ContactDocument,
  OpportunityDocument,
  RecordType,
  SourceDocument,
  TaskDocument,
} from '../domain/model';
import {
  accounts,
  activities,
  batchResults,
  contacts,
  opportunities,
  RECORD_COLLECTIONS,
  sources,
  tasks,
  type BatchResultDocument,
  type RecordDocuments,
} from './collections';
import type { RecordChanges } from './record-changes';
import { filterToConditions, orderingToSort } from './record-filter-conditions';
import { equal, filterConditions, type RecordFilters } from './record-filters';

/** Which page of a list, in which order, and the search text (the filters come apart, per kind). */
export interface Listing {
  /**
   * A literal, already lower-cased, that the record's `searchText` must contain: one substring test
   * on one field, which the collections declare for text search (SQLite: a trigram index).
   */
  search?: string;
  ordering: Ordering;
  page: Page;
  /** Walk on from this cursor (a `nextCursor` of an earlier page of the same list) instead of `page.offset`. */
  cursor?: string;
  /** A checked filter tree (domain/record-filter.ts), ANDed with the list's other criteria. */
  filter?: FilterNode;
  /** Several ordering keys (the filter language's `ordering`), instead of `ordering`. */
  orderingKeys?: OrderingKey[];
  /** Count the matches on cursor pages too. */
  countCursorPages?: boolean;
}

export type ListResult<T> = ListPage<T>;

/** Emails looked up per query of contactsByEmailKeys. */
const EMAIL_KEYS_PER_QUERY = 500;

export class RecordsRepository {
  constructor(readonly store: DocumentStore) {}

  private in(workspaceId: string): ScopedStore {
    return this.store.forWorkspace(workspaceId);
  }

  record<T extends RecordType>(workspaceId: string, type: T, id: string): Promise<RecordDocuments[T] | null> {
    return this.get(workspaceId, RECORD_COLLECTIONS[type] as CollectionDefinition<RecordDocuments[T]>, id);
  }

  /** Which of `ids` name a record of this kind in the workspace. */
  async existing(workspaceId: string, type: RecordType, ids: string[]): Promise<Set<string>> {
    const wanted = ids.filter((id) => typeof id === 'string' && id.length > 0);
    if (wanted.length === 0) return new Set();
    const found = await this.in(workspaceId).getMany(RECORD_COLLECTIONS[type] as CollectionDefinition<StoredDocument>, wanted);
    return new Set(found.map((d) => d.id));
  }

  /** One page of records of a kind: by offset (with the total) or after a cursor (without), with the next page's cursor. */
  listRecords<T extends RecordType>(
    workspaceId: string,
    type: T,
    filter: RecordFilters[T],
    listing: Listing,
  ): Promise<ListResult<RecordDocuments[T]>> {
    const collection = RECORD_COLLECTIONS[type] as CollectionDefinition<RecordDocuments[T]>;
    return this.list(workspaceId, collection, filterConditions(type, filter), listing);
  }

  /**
   * Groups and metrics of the records a list would hold (its own filters, a filter tree, a
   * search), computed by the store in one statement per answer, never by reading records out.
   */
  async aggregateRecords<T extends RecordType>(
    workspaceId: string,
    type: T,
    filter: RecordFilters[T],
    criteria: Pick<Listing, 'filter' | 'search'>,
    spec: AggregateSpec,
  ): Promise<AggregateResult> {
    const where = await this.matching(workspaceId, filterConditions(type, filter), criteria);
    return this.in(workspaceId).aggregate(RECORD_COLLECTIONS[type], {
      where,
      groupBy: spec.groupBy.map((key) => ({ field: key.field, ...(key.bucket ? { bucket: key.bucket } : {}) })),
      metrics: spec.measures.map((measure) => ({ op: measure.op, field: measure.field })),
    });
  }

  /** Writes the changes of one commit, all or none. */
  commit(workspaceId: string, changes: RecordChanges): Promise<void> {
    return this.in(workspaceId).commit(changes.ops);
  }

  /** The opportunities a contact is on. */
  opportunitiesWithContact(workspaceId: string, contactId: string): Promise<OpportunityDocument[]> {
    return this.in(workspaceId).find(opportunities, { where: [{ field: 'contactIds', op: 'has', value: contactId }] });
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

  /**
   * Contacts whose lower-cased email is one of `keys`, oldest first (the first one is "the" match).
   * Asked in chunks, so no query carries more values than the store binds at once; sorted here, not
   * in the query: asked to sort, SQLite walks the workspace's createdAt index instead of the emailKey one.
   */
  async contactsByEmailKeys(workspaceId: string, keys: string[]): Promise<ContactDocument[]> {
    const found: ContactDocument[] = [];
    for (let i = 0; i < keys.length; i += EMAIL_KEYS_PER_QUERY) {
      const chunk = keys.slice(i, i + EMAIL_KEYS_PER_QUERY);
      found.push(...(await this.in(workspaceId).find(contacts, { where: [{ field: 'emailKey', op: 'in', values: chunk }] })));
    }
    return found.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** The contacts holding any of these externalIds. */
  async contactsByExternalIds(workspaceId: string, externalIds: string[]): Promise<ContactDocument[]> {
    const found: ContactDocument[] = [];
    for (let i = 0; i < externalIds.length; i += EMAIL_KEYS_PER_QUERY) {
      const chunk = externalIds.slice(i, i + EMAIL_KEYS_PER_QUERY);
      found.push(...(await this.in(workspaceId).find(contacts, { where: [{ field: 'externalId', op: 'in', values: chunk }] })));
    }
    return found;
  }

  /** The records of a kind whose `field` holds one of `values` (asked in chunks, as contactsByEmailKeys). */
  async recordsWhereIn<T extends RecordType>(workspaceId: string, type: T, field: string, values: string[]): Promise<RecordDocuments[T][]> {
    const collection = RECORD_COLLECTIONS[type] as CollectionDefinition<RecordDocuments[T]>;
    const found: RecordDocuments[T][] = [];
    for (let i = 0; i < values.length; i += EMAIL_KEYS_PER_QUERY) {
      const chunk = values.slice(i, i + EMAIL_KEYS_PER_QUERY);
      found.push(...(await this.in(workspaceId).find(collection, { where: [{ field, op: 'in', values: chunk }] })));
    }
    return found;
  }

  /** The records of a kind with these ids (those that exist). */
  recordsByIds<T extends RecordType>(workspaceId: string, type: T, ids: string[]): Promise<RecordDocuments[T][]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.in(workspaceId).getMany(RECORD_COLLECTIONS[type] as CollectionDefinition<RecordDocuments[T]>, ids);
  }

  batchResult(workspaceId: string, id: string): Promise<BatchResultDocument | null> {
    return this.in(workspaceId).get(batchResults, id);
  }

  // ---------------------------------------------------------------- tasks, sources, activities

  async insertTask(task: TaskDocument): Promise<void> {
    await this.in(task.workspaceId).insert(tasks, task);
  }

  /** The workspace's tasks, or those about one record. */
  listTasks(workspaceId: string, relatedTo: string | undefined, listing: Listing): Promise<ListResult<TaskDocument>> {
    return this.list(workspaceId, tasks, equal('relatedTo', relatedTo), listing);
  }

  async insertSource(source: SourceDocument): Promise<void> {
    await this.in(source.workspaceId).insert(sources, source);
  }

  source(workspaceId: string, uid: string): Promise<SourceDocument | null> {
    return this.get(workspaceId, sources, uid);
  }

  listSources(workspaceId: string, listing: Listing): Promise<ListResult<SourceDocument>> {
    return this.list(workspaceId, sources, [], listing);
  }

  /** The workspace's audit log, or one record's. */
  listActivities(workspaceId: string, recordId: string | undefined, listing: Listing): Promise<ListResult<ActivityDocument>> {
    return this.list(workspaceId, activities, equal('recordId', recordId), listing);
  }

  private get<T extends StoredDocument>(workspaceId: string, collection: CollectionDefinition<T>, id: string): Promise<T | null> {
    if (typeof id !== 'string' || id.length === 0) return Promise.resolve(null);
    return this.in(workspaceId).get(collection, id);
  }

  /** One page by offset (with the total) or after a cursor (without), with the next page's cursor. */
  /** A list's conditions: its own, its filter tree's (related fields resolved to account ids), its search. */
  private async matching(workspaceId: string, conditions: Condition[], criteria: Pick<Listing, 'filter' | 'search'>): Promise<Condition[]> {
    const accountIds = async (where: Condition[], limit: number) =>
      (await this.in(workspaceId).find(accounts, { where, limit })).map((a) => a.id);
    const where = [...conditions, ...(await filterToConditions(criteria.filter, accountIds))];
    if (criteria.search) where.push({ field: 'searchText', op: 'contains_text', value: criteria.search });
    return where;
  }

  private async list<T extends StoredDocument>(
    workspaceId: string,
    collection: CollectionDefinition<T>,
    conditions: Condition[],
    listing: Listing,
  ): Promise<ListResult<T>> {
    const where = await this.matching(workspaceId, conditions, listing);
    const sort = listing.orderingKeys
      ? orderingToSort(listing.orderingKeys)
      : { field: listing.ordering.field, direction: listing.ordering.direction };
    return listPage(this.in(workspaceId), collection, {
      where,
      sort,
      ...listing.page,
      cursor: listing.cursor,
      owner: workspaceId,
      countCursorPages: listing.countCursorPages,
      // A filter's related conditions are resolved to account ids at each request: the cursor names the filter instead.
      ...(listing.filter ? { criteria: [conditions, listing.filter, listing.search ?? null] } : {}),
    });
  }
}
