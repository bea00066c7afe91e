/**
 * What an adapter implements: reads and writes with no notion of tenancy. The scoped store
 * (scoped-store.ts) is the only caller; it validates every input and adds the workspace
 * conditions, so the tenancy rule is written once for every adapter.
 */
import { AggregateQuery, AggregateResult, Change, CollectionDefinition, Condition, Page, Query, ReadQueue } from './port';

export type StoredRecord = { id: string } & Record<string, unknown>;

export type AdapterWrite =
  | { kind: 'insert'; collection: CollectionDefinition<any>; document: StoredRecord }
  /** Changes the (single) document matching `where`; with `required`, no match aborts the unit with 'conflict'. */
  | { kind: 'update'; collection: CollectionDefinition<any>; where: Condition[]; change: Change<unknown>; required: boolean }
  | { kind: 'updateMany'; collection: CollectionDefinition<any>; where: Condition[]; change: Change<unknown> }
  | { kind: 'deleteMany'; collection: CollectionDefinition<any>; where: Condition[] };

export interface StoreAdapter {
  find(collection: CollectionDefinition<any>, query: Query): Promise<StoredRecord[]>;
  count(collection: CollectionDefinition<any>, where: Condition[]): Promise<number>;
  findPage(collection: CollectionDefinition<any>, query: Query): Promise<Page<StoredRecord>>;
  aggregate(collection: CollectionDefinition<any>, query: AggregateQuery): Promise<AggregateResult>;
  /** Fails with StoreError('duplicate') when the id or a unique index is taken. */
  insert(collection: CollectionDefinition<any>, document: StoredRecord): Promise<StoredRecord>;
  /** Changes the first document matching `where` (callers include an id condition); null when none matches. */
  updateOne(collection: CollectionDefinition<any>, where: Condition[], change: Change<unknown>): Promise<StoredRecord | null>;
  /** The number of documents matched. */
  updateMany(collection: CollectionDefinition<any>, where: Condition[], change: Change<unknown>): Promise<number>;
  /**
   * Atomically: when a document with `document.id` exists and matches `scope`, applies `change`
   * to it; when no document has that id, inserts `document`; when the id belongs to a document
   * outside `scope`, fails with StoreError('duplicate').
   */
  upsert(collection: CollectionDefinition<any>, document: StoredRecord, change: Change<unknown>, scope: Condition[]): Promise<StoredRecord>;
  /** The number of documents deleted. */
  deleteMany(collection: CollectionDefinition<any>, where: Condition[]): Promise<number>;
  /** Applies every write or none. */
  commit(writes: AdapterWrite[]): Promise<void>;
  ping(): Promise<boolean>;
  /** See DocumentStore.indexField; an adapter whose declared indexes cover dynamic fields need not. */
  indexField?(collection: CollectionDefinition<any>, field: string, workspaceId: string): Promise<void>;
  dropFieldIndex?(collection: CollectionDefinition<any>, field: string, workspaceId: string): Promise<void>;
  /** See DocumentStore.readsSettled; an adapter whose reads never leave the event loop need not. */
  readsSettled?(maxWaitMs: number): Promise<void>;
  /** See DocumentStore.readQueue; an adapter whose reads never leave the event loop need not. */
  readQueue?(): ReadQueue;
  /** A read-only adapter seeing the store as of now until it is closed (see DocumentStore.openSnapshot). */
  snapshot?(): Promise<StoreAdapter>;
  close(): Promise<void>;
}
