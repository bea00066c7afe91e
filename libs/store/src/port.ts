/**
 * The document-store port. Services write their queries once, against these types; each adapter
 * (SQLite for the embedded default, MongoDB through mongoose in production) translates them.
 *
 * Rules every adapter keeps:
 * - Values are data, never operators: a condition's value must be a scalar (or an array of
 *   scalars for `in`/`nin`); anything else is refused with a StoreError('invalid_query').
 * - Field names must be declared-looking identifiers (`name`, `billingAddress.city`); others are refused.
 * - Tenancy lives here: a `workspace` collection is only reachable through `store.forWorkspace(id)`,
 *   which adds `workspaceId = id` to every read, write and count and stamps it on every insert.
 *   A `global` collection is only reachable through `store.global()`.
 */

export type Scalar = string | number | boolean | null;

/** One condition of a query; a query's `where` list is an AND of its conditions. */
export type Condition =
  | { field: string; op: 'eq' | 'ne'; value: Scalar }
  | { field: string; op: 'in' | 'nin'; values: Scalar[] }
  | { field: string; op: 'gt' | 'gte' | 'lt' | 'lte'; value: string | number }
  /** Literal, case-insensitive substring match on a string field: no pattern characters. */
  | { field: string; op: 'contains_text'; value: string }
  /** The array field holds this element. */
  | { field: string; op: 'has'; value: Scalar }
  /** The field is present and not null (true), or absent or null (false). */
  | { field: string; op: 'exists'; value: boolean }
  /** The field is absent, null, an empty string or an empty list (true), or holds something (false). */
  | { field: string; op: 'empty'; value: boolean }
  /** Any of the groups holds; each group is an AND of its conditions. */
  | { or: Condition[][] }
  /**
   * The group (an AND of its conditions) does not hold. A document that lacks a field the group
   * compares does not meet that comparison, so `not` keeps it: not(value > 5) keeps an unset value.
   */
  | { not: Condition[] };

/** A condition that compares one field (not a group). */
export type FieldCondition = Exclude<Condition, { or: Condition[][] } | { not: Condition[] }>;

export function isFieldCondition(c: Condition): c is FieldCondition {
  return !('or' in c) && !('not' in c);
}

export interface SortKey {
  field: string;
  direction: 'asc' | 'desc';
  /**
   * Where documents without a value sort: `low` (the default: absent and null) below every value,
   * so first ascending and last descending; `high` (absent, null and the empty string, all alike)
   * above every value, so last ascending and first descending.
   */
  unset?: 'low' | 'high';
}

export interface Query {
  where?: Condition[];
  /** Ties are always broken by id, in the direction of the last key (ascending when no sort). */
  sort?: SortKey[];
  limit?: number;
  offset?: number;
}

/** A date bucket: a `YYYY-MM-DD` or ISO timestamp value as the first day of its period (weeks start on Monday). */
export type DateBucket = 'day' | 'week' | 'month' | 'quarter' | 'year';

export interface GroupKey {
  field: string;
  /** Groups a date or timestamp field by period: the key is the period's first day, `YYYY-MM-DD`. */
  bucket?: DateBucket;
}

export type MetricOp = 'sum' | 'avg' | 'min' | 'max';

export interface Metric {
  op: MetricOp;
  field: string;
}

/**
 * Counts (and sums, averages, minimums, maximums of number fields) of the documents meeting
 * `where`, grouped by up to a few keys. Absent, null and `''` are one unset key (null).
 */
export interface AggregateQuery {
  where?: Condition[];
  groupBy: GroupKey[];
  metrics: Metric[];
}

export interface AggregateRow {
  /** One value per `groupBy` key, in order; null when unset. */
  key: Scalar[];
  count: number;
  /**
   * One value per metric, in order: a sum over no values is 0; an average, minimum or maximum
   * over no values is null. Values that are not numbers are not counted.
   */
  values: (number | null)[];
}

export interface AggregateResult {
  /** Ordered by key, each key ascending with unset keys last. */
  groups: AggregateRow[];
  /** Every document meeting `where` (its key is empty). */
  total: AggregateRow;
}

/** Every stored document has a string id, unique within its collection. */
export interface StoredDocument {
  id: string;
  workspaceId?: string;
}

export type FieldType = 'string' | 'number' | 'boolean';

export interface IndexDefinition {
  /** Fields in index order. For a workspace collection, workspaceId is put first implicitly. */
  fields: string[];
  /** Unique within the scope (within the workspace for a workspace collection). */
  unique?: boolean;
  /** A unique index that ignores documents where the (single) field is absent or null. */
  sparse?: boolean;
  /**
   * Across workspaces: no implicit workspaceId first (a workspace collection only; never unique).
   * For the purges of `DocumentStore.purge`, which filter on a time in every workspace at once.
   */
  acrossWorkspaces?: boolean;
}

export interface CollectionDefinition<T extends StoredDocument = StoredDocument> {
  name: string;
  scope: 'workspace' | 'global';
  /** Top-level scalar fields that lists filter or sort on, with their types; adapters index them. */
  fields?: Record<string, FieldType>;
  indexes?: IndexDefinition[];
  /**
   * Declared string fields that lists search with contains_text: an adapter that can index
   * substrings does (SQLite: an FTS5 trigram table). The answers are those of contains_text anywhere.
   */
  textSearch?: string[];
  /**
   * Sub-documents whose fields are data, not code (a workspace's custom fields): any of their
   * fields may be given an index while the service runs (DocumentStore.indexField). SQLite copies
   * each such field of a workspace into a slot of a side table; MongoDB covers them all with one
   * compound wildcard index (workspaceId, `<sub-document>.$**`), declared with the collection.
   */
  dynamicFields?: string[];
  /**
   * At most this many documents in one workspace, as the service's own rules keep it (a workspace's
   * custom field definitions). An adapter may read one workspace's where that costs least (SQLite:
   * on the event loop's connection, not a read worker). Not enforced by the store.
   */
  maxPerWorkspace?: number;
  /** Phantom, for inference only. */
  readonly __type?: T;
}

export function defineCollection<T extends StoredDocument>(definition: Omit<CollectionDefinition<T>, '__type'>): CollectionDefinition<T> {
  return definition as CollectionDefinition<T>;
}

/** A change to one document. `set` replaces top-level fields (dot paths allowed), `unset` removes them, `inc` adds to numbers (a missing field counts as 0). */
export interface Change<T> {
  set?: Partial<T> & Record<string, unknown>;
  unset?: string[];
  inc?: Record<string, number>;
}

export interface UpdateOptions {
  /** Extra conditions the document must meet; when they do not hold, nothing is changed. */
  where?: Condition[];
}

/** One write of a unit of work. */
export type WriteOp =
  | { kind: 'insert'; collection: CollectionDefinition<any>; document: StoredDocument & Record<string, unknown> }
  | {
      kind: 'update';
      collection: CollectionDefinition<any>;
      id: string;
      change: Change<any>;
      where?: Condition[];
      /** When true (the default), the unit fails with 'conflict' if the document does not match. */
      required?: boolean;
    }
  | { kind: 'delete'; collection: CollectionDefinition<any>; id: string }
  | { kind: 'deleteMany'; collection: CollectionDefinition<any>; where: Condition[] }
  | { kind: 'updateMany'; collection: CollectionDefinition<any>; where: Condition[]; change: Change<any> };

export interface Page<T> {
  /** Every document matching the query's conditions, whatever its offset and limit. */
  total: number;
  items: T[];
}

/** Reads and writes within one scope (a workspace, or the global scope). */
export interface ScopedStore {
  get<T extends StoredDocument>(collection: CollectionDefinition<T>, id: string): Promise<T | null>;
  /** Documents with these ids, in no particular order; unknown ids are left out. */
  getMany<T extends StoredDocument>(collection: CollectionDefinition<T>, ids: string[]): Promise<T[]>;
  find<T extends StoredDocument>(collection: CollectionDefinition<T>, query?: Query): Promise<T[]>;
  findOne<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[]): Promise<T | null>;
  count<T extends StoredDocument>(collection: CollectionDefinition<T>, where?: Condition[]): Promise<number>;
  /** One page of `query` and the number of all its matches, read together (a list endpoint's answer). */
  findPage<T extends StoredDocument>(collection: CollectionDefinition<T>, query: Query): Promise<Page<T>>;
  /** Groups and metrics computed by the database (GROUP BY, $group), never by reading documents out. */
  aggregate<T extends StoredDocument>(collection: CollectionDefinition<T>, query: AggregateQuery): Promise<AggregateResult>;
  /** Fails with StoreError('duplicate') when the id or a unique index is taken. */
  insert<T extends StoredDocument>(collection: CollectionDefinition<T>, document: T): Promise<T>;
  /** The updated document, or null when there is no such document or `where` does not hold. */
  update<T extends StoredDocument>(
    collection: CollectionDefinition<T>,
    id: string,
    change: Change<T>,
    options?: UpdateOptions,
  ): Promise<T | null>;
  updateMany<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[], change: Change<T>): Promise<number>;
  /**
   * Inserts `document` when no document has this id, otherwise applies `change`; returns the result.
   * Atomic: two concurrent upserts of one id never both insert.
   */
  upsert<T extends StoredDocument>(collection: CollectionDefinition<T>, document: T, change: Change<T>): Promise<T>;
  delete<T extends StoredDocument>(collection: CollectionDefinition<T>, id: string): Promise<boolean>;
  deleteMany<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[]): Promise<number>;
  /**
   * Applies every write or none (a transaction). A workspace's unit may include writes to global
   * collections (applied unscoped); a global unit may not touch workspace collections. An insert that hits a duplicate, or a required
   * update whose document is missing or fails its `where`, aborts the whole unit with a StoreError.
   */
  commit(ops: WriteOp[]): Promise<void>;
}

export interface DocumentStore {
  forWorkspace(workspaceId: string): ScopedStore;
  global(): ScopedStore;
  /**
   * Deletes at most `limit` documents matching `where`, in every workspace of a workspace
   * collection: retention's bounded pass (retention/retention-sweeper.ts), never a request's write.
   * The oldest go first: ordered by the field of the first `lt`/`lte` condition, so a collection
   * that declares that field's index `acrossWorkspaces` is read off it instead of scanned.
   * Returns how many went; fewer than `limit` means none were left.
   */
  purge<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[], limit: number): Promise<number>;
  /**
   * At most `limit` (1–500) documents of a workspace collection matching `where`, in every
   * workspace, each with its workspaceId: for a background sweep that looks for work wherever it
   * is, so its cost follows the work rather than the number of workspaces (never a request's read).
   * Filter and sort on an index declared `acrossWorkspaces`, or the read scans.
   */
  findAcrossWorkspaces<T extends StoredDocument>(
    collection: CollectionDefinition<T>,
    query: { where: Condition[]; sort?: SortKey[]; limit: number },
  ): Promise<(T & { workspaceId?: string })[]>;
  /**
   * The store as of this moment, for reads only, until its `close()`: every read through it sees
   * the same data however many reads it takes and whatever is written meanwhile (an export's pages).
   * SQLite: a read transaction on a second connection; MongoDB: a session with snapshot reads
   * (MongoDB 5.0+, within its history window, minSnapshotHistoryWindowInSeconds, 300 s by default).
   * Keep it short: it holds back SQLite's checkpoints and MongoDB's history.
   */
  openSnapshot(): Promise<DocumentStore>;
  /**
   * Makes a workspace's field of one of a workspace collection's `dynamicFields` sub-documents
   * quick to filter, count and order by (idempotent, safe from several processes). SQLite gives
   * it a slot of a side table with an index; MongoDB's declared wildcard index already covers it.
   */
  indexField<T extends StoredDocument>(collection: CollectionDefinition<T>, field: string, workspaceId: string): Promise<void>;
  /** What `indexField` made for the workspace's field, gone (nothing when there is none). */
  dropFieldIndex<T extends StoredDocument>(collection: CollectionDefinition<T>, field: string, workspaceId: string): Promise<void>;
  /**
   * Resolves once no read runs off the event loop (SQLite's read workers) or after `maxWaitMs`,
   * whichever comes first; at once where reads do not leave the event loop. A long synchronous
   * write waits for it, so that a read's answer does not wait behind the write to be sent.
   */
  readsSettled(maxWaitMs: number): Promise<void>;
  /** The reads running off the event loop and waiting for a worker now (all 0 where reads stay on it). */
  readQueue(): ReadQueue;
  /** Whether the backing database answers; for readiness probes. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface ReadQueue {
  /** Threads that run reads (SQLite's read workers; 0 where reads stay on the event loop). */
  workers: number;
  running: number;
  waiting: number;
}

export type StoreErrorCode = 'duplicate' | 'conflict' | 'invalid_query' | 'wrong_scope' | 'unavailable';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    /** For 'duplicate': the fields of the unique index that was hit, when known. */
    readonly fields?: string[],
  ) {
    super(message);
  }
}

export type StoreLocation =
  /**
   * One SQLite file (WAL mode), or ':memory:' for tests. With `readWorkers`, reads run on that many
   * worker threads (sqlite/sqlite-read-pool.ts) instead of holding the event loop.
   */
  | { kind: 'sqlite'; file: string; readWorkers?: number }
  /** A MongoDB deployment (a replica set, for transactions) and this service's own database. */
  | { kind: 'mongo'; url: string; database: string };

export interface OpenStoreOptions {
  location: StoreLocation;
  /** Every collection the service uses; adapters create tables/indexes for them at open. */
  collections: CollectionDefinition<any>[];
}
