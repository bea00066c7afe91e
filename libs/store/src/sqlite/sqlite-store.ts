/**
 * The embedded adapter: one SQLite file per service, one table per collection holding JSON
 * documents. better-sqlite3 is synchronous, so each operation (and each unit of work) runs to
 * completion inside one call: no other operation of this process can interleave with it, and
 * BEGIN IMMEDIATE plus busy_timeout serialise writers of other processes.
 */
import Database from 'better-sqlite3';
import {
  AggregateQuery,
  AggregateResult,
  Change,
  CollectionDefinition,
  Condition,
  Page,
  Query,
  ReadQueue,
  SortKey,
  StoreError,
} from '../port';
import { aggregateToSql } from './sqlite-aggregate';
import { AdapterWrite, StoreAdapter, StoredRecord } from '../store-adapter';
import { applyChange } from './apply-change';
import { INSERT_ROWS_PER_STATEMENT, insertRuns, insertValues } from './sqlite-insert-runs';
import {
  countSearchRowidsToSql,
  countToSql,
  countedSideSelectToSql,
  matchingRowidsToSql,
  searchesText,
  selectAmongRowidsToSql,
  selectRowidsToSql,
  selectSearchRowidsToSql,
  selectToSql,
  sideWalkToSql,
  SqlFragment,
  SqlValue,
  textCountToSql,
  textRowidsToSql,
  walkToSql,
  whereToSql,
  WorkspaceTextSearch,
  workspaceTextSearch,
  countSinceToSql,
} from './sqlite-query';
import { workspaceCountSql, workspaceStampSql, workspaceVersionSql } from './sqlite-workspace-counts';
import { WORKSPACE_TEXT_VERSION } from './sqlite-text-index';
import { createCollectionSchema, describeCollection, duplicateFields, dynamicIndexName, SqliteCollection } from './sqlite-schema';
import { SqliteWriteThread, type WriteMethod } from './sqlite-write-thread';
import { isSmallRead, readsOnLoop, workspaceOf } from './loop-reads';
import { keepUpWithInserts } from './sqlite-insert-upkeep';
import { SqliteReadPool, type ReadMethod } from './sqlite-read-pool';
import { quoteIdentifier } from './sqlite-columns';
import {
  assignSlot,
  fieldHasSlots,
  hasDynamicFields,
  isDynamicField,
  namedFields,
  releaseSlot,
  slotsOf,
  writeSideRows,
} from './sqlite-dynamic-slots';
import { KeptAnswers } from './kept-answers';
import { CountStamp, KeptCounts } from './kept-counts';
import { keepAlive } from './keep-alive';
import { startWalCheckpointer, WalCheckpointer } from './wal-checkpointer';

/** How long a writer waits for another process's write lock before giving up with 'unavailable'. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Up to this many text-search matches are sorted directly instead of walking a sort index (about
 * 2.5 µs a match: 5 ms at the limit), and their number is the count without a second search.
 */
const TEXT_SEARCH_SORT_LIMIT = 2000;
/**
 * Past that, a page walks the sort index testing each document (about 1.5 µs an entry), expecting
 * its matches spread evenly: it reads this many times the entries that should fill the page, and
 * at least TEXT_SEARCH_WALK_MIN. Matches bunched beyond that (all of them old, say) leave the page
 * short, and it is read again by the slower way that cannot miss.
 */
const TEXT_SEARCH_WALK_MARGIN = 4;
/** Index entries walked (testing a rowid's membership) that cost as much as sorting one match. */
const TEXT_SEARCH_WALK_PER_SORTED = 40;
const TEXT_SEARCH_WALK_MIN = 4000;
/**
 * Up to this many text-search matches are collected once for a list page: their number is the
 * count, and the page walks the sort index keeping only them, instead of searching again for each.
 */
const TEXT_SEARCH_COUNT_LIMIT = 50_000;
/**
 * Searches whose matches are kept while their workspace's text version stands (see
 * sqlite-text-index.ts): a common needle's count reads the whole workspace's values (about 10 ms
 * for 100,000 contacts), and paging through it, or the next person searching the same word, asks
 * for the same again. At most about 14 kB each (2,000 rowids).
 */
const KEPT_SEARCHES = 256;
/**
 * Filtered counts and aggregates kept while the version of their workspace's documents stands
 * (sqlite-workspace-counts.ts): a list paged through, or a dashboard asking again, reads a count
 * of tens of thousands of matches (about 30 ms for 28,000 of 100,000 contacts) once per change of
 * the workspace's data instead of once per page. A few bytes each; an aggregate at most its groups.
 */
const KEPT_COUNTS = 1024;
const KEPT_AGGREGATES = 128;
/**
 * A kept count is carried past inserts (kept-counts.ts) by reading the table's rows inserted since
 * it, while there are at most this many in every workspace together (about 1 µs a row).
 */
const COUNT_SINCE_ROWS = 5000;
/**
 * With its count known, a page ordered by a slot walks the slot's index (about 1 µs an entry, each
 * tested against the conditions) instead of ordering every match, expecting the matches spread
 * evenly: it reads this many times the entries that should fill the page, and at least
 * SIDE_WALK_MIN. A short page is read again by the way that cannot miss. A walk that would read
 * more than this share of the workspace's documents is not tried.
 */
const SIDE_WALK_MARGIN = 4;
const SIDE_WALK_MIN = 100;
const SIDE_WALK_MAX_SHARE = 1 / 4;
/**
 * With its count not yet known, a page ordered by a slot first walks the slot's index over this
 * many times the entries it needs (at least SIDE_WALK_MIN): when that fills the page (a tenth or
 * more of the documents match), the matches are counted alone, a scan that keeps no rows (22 ms for
 * 28,000 of 100,000 contacts), instead of the one pass that keeps every match to order them (39 ms).
 * A walk that falls short costs about 2 µs an entry, and the one pass follows; with fewer matches
 * that pass keeps fewer rows and costs about what a count does.
 */
const SIDE_TRIAL_WALK_FACTOR = 10;
/**
 * Each connection's page cache. Pages beyond it come from the operating system's file cache,
 * which is not this process's memory. No memory mapping: every mapped page a read touches counts
 * in the process's RSS (a 100,000-contact records file put 250 MB there), and with the trigram
 * index searches no longer read a whole table.
 */
const CACHE_SIZE_KIB = 16 * 1024;
/** The worker checkpoints this often; the writer itself only once the log reaches the backstop size (pages). */
const CHECKPOINT_INTERVAL_MS = 250;
const BACKSTOP_CHECKPOINT_PAGES = 10_000;
const OPEN_RETRY_MS = 15_000;

const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

interface Row {
  id: string;
  doc: string;
}

/** A workspace's matches of a needle: their number, and when few, their rowids (a JSON array). */
interface SearchMatches {
  count: number;
  rowids?: string;
}

export class SqliteStoreAdapter implements StoreAdapter {
  private readonly collections = new Map<string, SqliteCollection>();
  private readonly statements = new Map<string, Database.Statement>();
  private readonly runInTransaction: Database.Transaction<(work: () => unknown) => unknown>;
  private closed = false;
  private closing: Promise<void> | undefined;
  private checkpointer: WalCheckpointer | undefined;
  private readonly keptSearches = new KeptAnswers<SearchMatches>(KEPT_SEARCHES);
  private readonly keptCounts = new KeptCounts(KEPT_COUNTS);
  private readonly keptAggregates = new KeptAnswers<AggregateResult>(KEPT_AGGREGATES);
  /** Where reads run when the store was opened with read workers (sqlite-read-pool.ts). */
  private reads: SqliteReadPool | undefined;
  /** Where writes run, beside the read workers (sqlite-write-thread.ts). */
  private writeThread: SqliteWriteThread | undefined;
  /** The last write of this connection (see `onConnection`): the writes after it wait for it. */
  private lastWrite: Promise<unknown> = Promise.resolve();
  /** Writes sent to the write thread and not answered yet. */
  private readonly threadWrites = new Set<Promise<unknown>>();

  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    /** A snapshot's end (its read transaction and connection), instead of closing `db`. */
    private readonly ending?: () => void,
  ) {
    this.runInTransaction = db.transaction((work: () => unknown) => work());
  }

  /**
   * Reads as of now until closed: a second, read-only connection holding one read transaction
   * (in WAL mode, every read of a transaction sees the database as of its first read, whatever is
   * committed meanwhile). While it is open, checkpoints cannot move past it, so the log grows
   * with the writes made meanwhile: callers keep snapshots short (an export, seconds). A
   * ':memory:' database has one connection only: there the "snapshot" is the live store (tests).
   */
  async snapshot(): Promise<StoreAdapter> {
    return this.guard(undefined, () => {
      if (this.file === ':memory:') {
        const live = new SqliteStoreAdapter(this.db, this.file, () => undefined);
        for (const [name, collection] of this.collections) live.collections.set(name, collection);
        return live;
      }
      const db = keepAlive(new Database(this.file, { readonly: true, timeout: BUSY_TIMEOUT_MS }));
      try {
        db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
        db.exec(`PRAGMA cache_size = -${CACHE_SIZE_KIB}`);
        db.exec('BEGIN');
        // The read transaction, and so the snapshot, starts at the first read.
        keepAlive(db.prepare('SELECT count(*) FROM sqlite_schema')).pluck(true).get();
      } catch (error) {
        db.close();
        throw error;
      }
      const snapshot = new SqliteStoreAdapter(db, this.file, () => {
        if (db.inTransaction) db.exec('ROLLBACK');
        db.close();
      });
      for (const [name, collection] of this.collections) snapshot.collections.set(name, collection);
      return snapshot;
    });
  }

  /**
   * Opens the file and brings its schema up to date. Processes sharing a file (a service and its
   * workers) open it together, and now and then SQLite answers one of them "database is locked"
   * without waiting (its busy handler does not cover every step of opening a WAL database: 1 open
   * in 60 failed when six processes opened a new file at once). Opening is retried for that.
   */
  static async open(file: string, collections: CollectionDefinition<any>[], readWorkers = 0): Promise<SqliteStoreAdapter> {
    const adapter = await SqliteStoreAdapter.openWriter(file, collections);
    if (readWorkers > 0 && file !== ':memory:') {
      try {
        adapter.reads = await SqliteReadPool.start(file, collections, readWorkers);
        adapter.writeThread = await SqliteWriteThread.start(file, collections);
      } catch (error) {
        await adapter.close();
        throw error;
      }
    }
    return adapter;
  }

  /**
   * A read-only connection to a file whose schema a writer has put in place (a read worker's): it
   * reads as the writer does and writes nothing.
   */
  static openReader(file: string, collections: CollectionDefinition<any>[]): SqliteStoreAdapter {
    let db: Database.Database | undefined;
    try {
      db = keepAlive(new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS }));
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.exec(`PRAGMA cache_size = -${CACHE_SIZE_KIB}`);
    } catch (error) {
      db?.close();
      throw mapError(error);
    }
    const reader = new SqliteStoreAdapter(db, file);
    for (const definition of collections) reader.describe(definition);
    return reader;
  }

  /**
   * A second writable connection to a file whose schema a writer has put in place (the write
   * thread's): it commits as the writer does, and leaves checkpoints to it.
   */
  static openCommitter(file: string, collections: CollectionDefinition<any>[]): SqliteStoreAdapter {
    const committer = SqliteStoreAdapter.connect(file);
    for (const definition of collections) committer.describe(definition);
    return committer;
  }

  /** Lets a reader read a collection the writer has made since the reader opened. */
  describe(definition: CollectionDefinition<any>): void {
    if (!this.collections.has(definition.name)) this.collections.set(definition.name, describeCollection(definition));
  }

  /** The definition of a collection this adapter knows, by name (a read worker's requests name it). */
  definitionNamed(name: string): CollectionDefinition<any> | undefined {
    return this.collections.get(name)?.definition;
  }

  private static async openWriter(file: string, collections: CollectionDefinition<any>[]): Promise<SqliteStoreAdapter> {
    const deadline = Date.now() + OPEN_RETRY_MS;
    for (let wait = 25; ; wait = Math.min(wait * 2, 500)) {
      try {
        return SqliteStoreAdapter.openOnce(file, collections);
      } catch (error) {
        const locked = error instanceof StoreError && error.code === 'unavailable' && /locked|busy/i.test(error.message);
        if (!locked || Date.now() + wait > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait));
      }
    }
  }

  private static openOnce(file: string, collections: CollectionDefinition<any>[]): SqliteStoreAdapter {
    const adapter = SqliteStoreAdapter.connect(file);
    try {
      for (const collection of collections) adapter.collection(collection);
    } catch (error) {
      adapter.db.close();
      throw mapError(error);
    }
    // Started once the schema is in place, so its connection does not join the race to open the file.
    if (file !== ':memory:') {
      adapter.checkpointer = startWalCheckpointer(file, {
        intervalMs: CHECKPOINT_INTERVAL_MS,
        busyTimeoutMs: BUSY_TIMEOUT_MS,
        onError: (message) => process.emitWarning(`WAL checkpoint of ${file} failed: ${message}`, 'SqliteCheckpointWarning'),
      });
    }
    return adapter;
  }

  private static connect(file: string): SqliteStoreAdapter {
    let db: Database.Database | undefined;
    try {
      db = keepAlive(new Database(file, { timeout: BUSY_TIMEOUT_MS }));
      // PRAGMAs through exec, not db.pragma(): that prepares a statement and leaves it to the
      // garbage collector (see keep-alive.ts).
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      if (file !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec(`PRAGMA cache_size = -${CACHE_SIZE_KIB}`);
      if (file === ':memory:') return new SqliteStoreAdapter(db, file);
      db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
      return new SqliteStoreAdapter(db, file);
    } catch (error) {
      try {
        db?.close();
      } catch {
        // The error that stopped the open is the one to report.
      }
      throw mapError(error);
    }
  }

  async find(collection: CollectionDefinition<any>, query: Query): Promise<StoredRecord[]> {
    if (this.reads && !readsOnLoop(collection, query)) return this.onReader('find', collection, query.where, [query]);
    return this.guard(collection, (c) => {
      if (query.limit !== undefined && searchesText(query.where ?? [])) {
        return this.runInTransaction.deferred(() => this.findText(this.withSlots(c, query), query)) as StoredRecord[];
      }
      return this.documents(selectToSql(query, this.withSlots(c, query).columns));
    });
  }

  /**
   * A sorted page filtered by contains_text. Left alone, SQLite walks the sort index and parses
   * every document until the page is full: instant for a common word, a parse of the whole
   * workspace for a rare one. So a workspace's search is first counted in its text index: a few
   * matches are sorted directly, many are found by a bounded walk of the sort index.
   */
  private findText(c: SqliteCollection, query: Query): StoredRecord[] {
    const search = workspaceTextSearch(query.where ?? [], c.columns);
    if (search) return this.searchPage(c, query, search, this.searchMatches(search));
    const rowids = this.textMatches(c, query.where ?? [], TEXT_SEARCH_SORT_LIMIT);
    if (!rowids) return this.documents(selectToSql(query, c.columns));
    return this.documents(selectRowidsToSql(query, JSON.stringify(rowids), c.columns));
  }

  /**
   * How many of the workspace's documents hold the needle (whatever the other conditions), and
   * which, when they are few enough to sort: a rare needle is read from the index once, not twice.
   * Kept while the workspace's text version stands; runs inside a read transaction, so that the
   * version and the matches are of the same snapshot.
   */
  private searchMatches(search: WorkspaceTextSearch): SearchMatches {
    const [version] = this.firstColumn<number>({ sql: WORKSPACE_TEXT_VERSION, params: [search.workspaceId] });
    return this.keptSearches.get(`${search.index}\0${search.workspaceId}\0${search.needle}`, version ?? 0, () => {
      const rowids = this.firstColumn<number>(textRowidsToSql(search, TEXT_SEARCH_SORT_LIMIT + 1));
      if (rowids.length <= TEXT_SEARCH_SORT_LIMIT) return { count: rowids.length, rowids: JSON.stringify(rowids) };
      return { count: this.firstColumn<number>(textCountToSql(search))[0] ?? 0 };
    });
  }

  /**
   * The page of a workspace's search; `total` when the page's number of matches is known (the
   * other conditions then left none out).
   */
  private searchPage(
    c: SqliteCollection,
    query: Query,
    search: WorkspaceTextSearch,
    matches: SearchMatches,
    total?: number,
  ): StoredRecord[] {
    if (query.limit === 0 || matches.count === 0) return [];
    const offset = query.offset ?? 0;
    const wanted = query.limit ?? Infinity;
    const workspace = workspaceCountSql([{ field: 'workspaceId', op: 'eq', value: search.workspaceId }], c.columns);
    const documents = workspace ? (this.firstColumn<number>(workspace)[0] ?? 0) : Infinity;
    if (matches.rowids !== undefined) {
      // Walking the sort index past the entries of other documents (about 0.05 µs each) beats
      // sorting the matches (about 2 µs each, for their sort values) once they are not too sparse.
      const walked = ((offset + wanted) * documents) / matches.count;
      const walk = walked < TEXT_SEARCH_WALK_PER_SORTED * matches.count;
      const rowids = matches.rowids;
      return this.documents(
        walk ? selectAmongRowidsToSql(query, rowids, c.columns) : selectSearchRowidsToSql(query, search, rowids, c.columns),
      );
    }
    const budget = Math.max(TEXT_SEARCH_WALK_MIN, Math.ceil((TEXT_SEARCH_WALK_MARGIN * (offset + wanted) * documents) / matches.count));
    if (Number.isFinite(budget)) {
      const items = this.documents(walkToSql(query, search, budget, c.columns));
      const expected = total === undefined ? wanted : Math.min(wanted, Math.max(0, total - offset));
      if (items.length >= expected || budget >= documents) return items;
    }
    return this.documents(selectToSql(query, c.columns));
  }

  /**
   * A page of a query (no text search) whose `total` matches are known: a page ordered by a slot
   * walks its index when the matches are common enough to fill it early (see SIDE_WALK_MARGIN).
   */
  private knownPage(c: SqliteCollection, query: Query, total: number): StoredRecord[] {
    const offset = query.offset ?? 0;
    const expected = Math.min(query.limit ?? Infinity, Math.max(0, total - offset));
    if (expected === 0) return [];
    const walk = Number.isFinite(expected) ? sideWalkToSql(query, c.columns) : undefined;
    const workspaceId = walk && workspaceOf(query.where ?? []);
    const workspace = workspaceId && workspaceCountSql([{ field: 'workspaceId', op: 'eq', value: workspaceId }], c.columns);
    if (walk && workspace) {
      const documents = this.firstColumn<number>(workspace)[0] ?? 0;
      const budget = Math.max(SIDE_WALK_MIN, Math.ceil((SIDE_WALK_MARGIN * (offset + expected) * documents) / total));
      if (budget <= documents * SIDE_WALK_MAX_SHARE) {
        const items = this.documents(walk(budget));
        if (items.length >= expected) return items;
      }
    }
    return this.documents(selectToSql(query, c.columns));
  }

  /** A page ordered by a slot, when a short walk of its index fills it (see SIDE_TRIAL_WALK_FACTOR). */
  private trialWalk(c: SqliteCollection, query: Query): StoredRecord[] | undefined {
    const wanted = (query.offset ?? 0) + (query.limit ?? Infinity);
    const walk = Number.isFinite(wanted) ? sideWalkToSql(query, c.columns) : undefined;
    if (!walk) return undefined;
    const items = this.documents(walk(Math.max(SIDE_WALK_MIN, SIDE_TRIAL_WALK_FACTOR * wanted)));
    return items.length >= (query.limit ?? Infinity) ? items : undefined;
  }

  /** The rowids matching a text search when there are at most `limit` of them; undefined when more. */
  private textMatches(c: SqliteCollection, where: Condition[], limit: number): number[] | undefined {
    const rowids = this.firstColumn<number>(matchingRowidsToSql(where, c.columns, limit + 1));
    return rowids.length > limit ? undefined : rowids;
  }

  private documents(select: SqlFragment): StoredRecord[] {
    return this.firstColumn<string>(select).map(parse);
  }

  /** The first column of every row of a SELECT. */
  private firstColumn<T>({ sql, params }: SqlFragment): T[] {
    return this.statement(sql)
      .pluck(true)
      .all(...params) as T[];
  }

  /** One statement: the total is folded from its groups, so they agree. */
  async aggregate(collection: CollectionDefinition<any>, query: AggregateQuery): Promise<AggregateResult> {
    if (this.reads) return this.onReader('aggregate', collection, query.where, [query]);
    return this.guard(collection, (c) => {
      const read = [...query.groupBy.map((key) => key.field), ...query.metrics.map((metric) => metric.field)];
      const slotted = this.withSlots(c, { where: query.where }, read);
      const answer = this.runInTransaction.deferred(() => {
        const version = this.dataVersion(slotted, query.where ?? []);
        const key = `${collection.name}\0${JSON.stringify(query)}`;
        const kept = version === undefined ? undefined : this.keptAggregates.peek(key, version);
        if (kept) return kept;
        const statement = aggregateToSql(query, slotted.columns, collection);
        const rows = this.statement(statement.sql)
          .raw(true)
          .all(...statement.params) as SqlValue[][];
        const result = statement.read(rows);
        if (version !== undefined) this.keptAggregates.put(key, version, result);
        return result;
      }) as AggregateResult;
      // A copy: the kept answer stays as it was read whatever its caller does with this one.
      return structuredClone(answer);
    });
  }

  /** The version of the documents of the one workspace `where` names (read inside the answer's read transaction). */
  private dataVersion(c: SqliteCollection, where: Condition[]): number | undefined {
    const version = workspaceVersionSql(where, c.columns);
    return version ? (this.firstColumn<number>(version)[0] ?? 0) : undefined;
  }

  /**
   * The stamp of a count worth keeping (read inside the answer's read transaction): of the one
   * workspace `where` names, unless it is the whole workspace's, which is one lookup already.
   */
  private countStamp(c: SqliteCollection, where: Condition[]): CountStamp | undefined {
    const stamp = workspaceCountSql(where, c.columns) ? undefined : workspaceStampSql(where, c.columns);
    if (!stamp) return undefined;
    const [row] = this.statement(stamp.sql)
      .raw(true)
      .all(...stamp.params) as [number, number, number, number][];
    return { version: row![0], changes: row![1], removedTops: row![2], lastRowid: row![3] };
  }

  /** The key of a kept count: the collection and the conditions (never their SQL, which names slots). */
  private countKey(c: SqliteCollection, where: Condition[]): string {
    return `${c.definition.name}\0${JSON.stringify(where)}`;
  }

  /** The count of `where` kept at this stamp, or carried over the inserts since it; undefined when neither. */
  private knownCount(c: SqliteCollection, where: Condition[], stamp: CountStamp | undefined): number | undefined {
    return stamp && this.keptCounts.peek(this.countKey(c, where), stamp, (since) => this.countSince(c, where, stamp, since));
  }

  /** The matches of `where` among the rows inserted after `since`, when they are few enough to read. */
  private countSince(c: SqliteCollection, where: Condition[], stamp: CountStamp, since: number): number | undefined {
    if (stamp.lastRowid - since > COUNT_SINCE_ROWS) return undefined;
    return this.firstColumn<number>(countSinceToSql(where, c.columns, since))[0] ?? 0;
  }

  /**
   * The number of documents meeting `where` (not a text search), kept while their workspace's
   * version stands or only inserts moved it; `stamp` when the caller has read it in this transaction already.
   */
  private keptCount(c: SqliteCollection, where: Condition[], stamp = this.countStamp(c, where)): number {
    const count = () => this.firstColumn<number>(countToSql(where, c.columns))[0] ?? 0;
    if (!stamp) return count();
    return this.keptCounts.get(this.countKey(c, where), stamp, (since) => this.countSince(c, where, stamp, since), count);
  }

  async count(collection: CollectionDefinition<any>, where: Condition[]): Promise<number> {
    if (this.reads) return this.onReader('count', collection, where, [where]);
    return this.guard(collection, (unbound) => {
      const c = this.withSlots(unbound, { where });
      const search = workspaceTextSearch(where, c.columns);
      if (!search?.alone) return this.runInTransaction.deferred(() => this.keptCount(c, where)) as number;
      return this.runInTransaction.deferred(() => this.searchMatches(search).count) as number;
    });
  }

  /**
   * The count and the page in one read transaction. A workspace's search is counted in its text
   * index (with other conditions, among the few documents it finds); another text search collects
   * its matches once, and when they are few, their number is the total and the page is cut from them.
   */
  async findPage(collection: CollectionDefinition<any>, query: Query): Promise<Page<StoredRecord>> {
    if (this.reads && !isSmallRead(collection, query)) return this.onReader('findPage', collection, query.where, [query]);
    return this.guard(
      collection,
      (unbound) =>
        this.runInTransaction.deferred(() => {
          const c = this.withSlots(unbound, query);
          const where = query.where ?? [];
          const search = workspaceTextSearch(where, c.columns);
          const matches = search ? this.searchMatches(search) : undefined;
          if (search && matches && search.alone) {
            return { total: matches.count, items: this.searchPage(c, query, search, matches, matches.count) };
          }
          if (search && matches?.rowids !== undefined) {
            const [total] = this.firstColumn<number>(countSearchRowidsToSql(search, matches.rowids, c.columns));
            return { total: total ?? 0, items: this.searchPage(c, query, search, matches) };
          }
          const rowids = searchesText(where) ? this.textMatches(c, where, TEXT_SEARCH_COUNT_LIMIT) : undefined;
          if (rowids) {
            const page = rowids.length <= TEXT_SEARCH_SORT_LIMIT ? selectRowidsToSql : selectAmongRowidsToSql;
            const items = query.limit === 0 ? [] : this.documents(page(query, JSON.stringify(rowids), c.columns));
            return { total: rowids.length, items };
          }
          const stamp = this.countStamp(c, where);
          const known = this.knownCount(c, where, stamp);
          if (known !== undefined) return { total: known, items: this.knownPage(c, query, known) };
          const counted = query.limit !== 0 ? countedSideSelectToSql(query, c.columns) : undefined;
          const walked = counted && this.trialWalk(c, query);
          if (walked) return { total: this.keptCount(c, where, stamp), items: walked };
          if (counted) {
            // One pass over the side rows orders the page and counts the matches.
            const rows = this.statement(counted.sql)
              .raw(true)
              .all(...counted.params) as [string, number][];
            if (rows.length > 0) {
              if (stamp) this.keptCounts.put(this.countKey(c, where), stamp, rows[0]![1]);
              return { total: rows[0]![1], items: rows.map(([doc]) => parse(doc)) };
            }
          }
          const total = this.keptCount(c, where, stamp);
          return { total, items: this.documents(selectToSql(query, c.columns)) };
        }) as Page<StoredRecord>,
    );
  }

  async insert(collection: CollectionDefinition<any>, document: StoredRecord): Promise<StoredRecord> {
    return this.write('insert', collection, [document], (c) =>
      // The document, its count and text index (sqlite-insert-upkeep.ts) and its side row (sqlite-dynamic-slots.ts) in one commit.
      parse(this.transaction(() => this.insertRow(c, document))),
    );
  }

  async updateOne(collection: CollectionDefinition<any>, where: Condition[], change: Change<unknown>): Promise<StoredRecord | null> {
    return this.write('updateOne', collection, [where, change], (c) =>
      this.transaction(() => this.updateRows(c, where, change, 1)[0] ?? null),
    );
  }

  async updateMany(collection: CollectionDefinition<any>, where: Condition[], change: Change<unknown>): Promise<number> {
    return this.write('updateMany', collection, [where, change], (c) => this.transaction(() => this.updateRows(c, where, change).length));
  }

  async upsert(
    collection: CollectionDefinition<any>,
    document: StoredRecord,
    change: Change<unknown>,
    scope: Condition[],
  ): Promise<StoredRecord> {
    return this.write('upsert', collection, [document, change, scope], (c) =>
      this.transaction(() => {
        const idCondition: Condition = { field: 'id', op: 'eq', value: document.id };
        const updated = this.updateRows(c, [idCondition, ...scope], change, 1)[0];
        // Inside the write transaction nobody can insert this id between the check and the insert;
        // if the insert still hits the id, the document belongs to another scope: a duplicate.
        return updated ?? parse(this.insertRow(c, document));
      }),
    );
  }

  async deleteMany(collection: CollectionDefinition<any>, where: Condition[]): Promise<number> {
    return this.write('deleteMany', collection, [where], (c) => this.deleteRows(c, where));
  }

  async commit(writes: AdapterWrite[]): Promise<void> {
    // Schemas first: DDL inside the unit would be harmless, but a bad definition should fail before any write.
    const resolved = writes.map((write) => ({ write, collection: this.guard(write.collection, (c) => c) }));
    const thread = this.writeThread;
    if (thread?.running) return this.onThread(() => thread.commit(writes));
    return this.onConnection(() =>
      this.guard(undefined, () =>
        this.transaction(() => {
          for (const step of insertRuns(resolved)) {
            try {
              if ('documents' in step) this.insertRows(step.collection, step.documents);
              else this.applyWrite(step.write, step.collection);
            } catch (error) {
              throw mapError(error, step.collection);
            }
          }
        }),
      ),
    );
  }

  /**
   * The adapter's write `method` with `args`: on the write thread while it runs (once this
   * connection has the collection's schema in place), else `here` on this connection.
   */
  private write<T>(
    method: Exclude<WriteMethod, 'commit'>,
    collection: CollectionDefinition<any>,
    args: unknown[],
    here: (c: SqliteCollection) => T,
  ): Promise<T> {
    const thread = this.writeThread;
    if (!thread?.running) return this.onConnection(() => this.guard(collection, here));
    this.guard(collection, () => undefined);
    return this.onThread(() => thread.run<T>(method, collection, args));
  }

  /**
   * Sends a write to the thread after this connection's writes asked for before it. The thread
   * runs its writes in the order sent, so they need not wait for each other's answers.
   */
  private onThread<T>(send: () => Promise<T>): Promise<T> {
    const sent = this.lastWrite.then(send);
    const answered = sent.then(
      () => undefined,
      () => undefined,
    );
    this.threadWrites.add(answered);
    void answered.then(() => this.threadWrites.delete(answered));
    return sent;
  }

  /**
   * Runs a write of this connection once every write asked for before it is done: with the write
   * thread, the writes this connection still makes (a slot for a field, a write after the thread
   * stopped) wait for the thread's here rather than in SQLite's busy handler, which would sleep on
   * the event loop. Without the thread, at once.
   */
  private onConnection<T>(write: () => T | Promise<T>): Promise<T> {
    if (!this.writeThread) return Promise.resolve().then(write);
    const sentBefore = [...this.threadWrites];
    const turn = this.lastWrite.then(() => Promise.all(sentBefore)).then(write);
    this.lastWrite = turn.catch(() => undefined);
    return turn;
  }

  private applyWrite(write: AdapterWrite, collection: SqliteCollection): void {
    switch (write.kind) {
      case 'insert':
        this.insertRow(collection, write.document);
        break;
      case 'update':
        if (this.updateRows(collection, write.where, write.change, 1).length === 0 && write.required) {
          throw new StoreError('conflict', `No ${write.collection.name} document matches the update`);
        }
        break;
      case 'updateMany':
        this.updateRows(collection, write.where, write.change);
        break;
      case 'deleteMany':
        this.deleteRows(collection, write.where);
        break;
    }
  }

  /**
   * A slot of the side table for the workspace's field, filled from its documents, with an index
   * on (workspace, slot) (sqlite-dynamic-slots.ts). Past the slots there are, the field is read
   * from the documents.
   */
  async indexField(definition: CollectionDefinition<any>, field: string, workspaceId: string): Promise<void> {
    return this.onConnection(() =>
      this.guard(definition, (collection) => {
        // Records asks again for every definition at each start: a held slot costs one read, no write.
        if (slotsOf(this.prepare, definition.name, workspaceId).has(field)) return;
        this.transaction(() => assignSlot(this.db, this.prepare, collection, workspaceId, field));
        // Makes the planner read the new index's statistics.
        this.db.exec('ANALYZE sqlite_schema');
      }),
    );
  }

  /**
   * The workspace's slot of the field, freed; and the expression index earlier versions made for
   * the field across workspaces (sqlite-schema.ts keeps it), once no workspace has a slot for it.
   */
  async dropFieldIndex(definition: CollectionDefinition<any>, field: string, workspaceId: string): Promise<void> {
    return this.onConnection(() =>
      this.guard(definition, () => {
        this.transaction(() => releaseSlot(this.prepare, definition, workspaceId, field));
        if (!fieldHasSlots(this.prepare, definition.name, field)) {
          this.db.exec(`DROP INDEX IF EXISTS ${quoteIdentifier(dynamicIndexName(definition.name, field))}`);
        }
      }),
    );
  }

  /**
   * The collection's columns for a query, reading the dynamic fields it names from the
   * workspace's slots (sqlite-dynamic-slots.ts). A collection without dynamic fields, a query of
   * no one workspace or of no slotted field reads the documents.
   */
  private withSlots(c: SqliteCollection, query: { where?: Condition[]; sort?: SortKey[] }, read: string[] = []): SqliteCollection {
    if (!hasDynamicFields(c.definition)) return c;
    const where = query.where ?? [];
    const workspaceId = workspaceOf(where);
    if (workspaceId === undefined) return c;
    const fields = new Set(read);
    for (const key of query.sort ?? []) fields.add(key.field);
    namedFields(where, fields);
    const named = [...fields].filter((field) => isDynamicField(c.definition, field));
    if (named.length === 0) return c;
    const slots = slotsOf(this.prepare, c.definition.name, workspaceId);
    const used = new Map(named.flatMap((field) => (slots.has(field) ? [[field, slots.get(field)!] as const] : [])));
    return used.size === 0 ? c : { ...c, columns: c.columns.withSlots(used) };
  }

  private readonly prepare = (sql: string): Database.Statement<any[]> => this.statement(sql);

  async readsSettled(maxWaitMs: number): Promise<void> {
    await this.reads?.settled(maxWaitMs);
  }

  readQueue(): ReadQueue {
    return this.reads?.queue() ?? { workers: 0, running: 0, waiting: 0 };
  }

  /** A read on the pool's workers, once this connection has the collection's schema in place; fair by workspace. */
  private onReader<T>(
    method: ReadMethod,
    collection: CollectionDefinition<any>,
    where: Condition[] | undefined,
    args: unknown[],
  ): Promise<T> {
    this.guard(collection, () => undefined);
    return this.reads!.run<T>(workspaceOf(where ?? []) ?? '', method, collection, args);
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      return this.statement('SELECT 1').pluck(true).get() === 1;
    } catch {
      return false;
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    // The writes asked for before the close go first (with the write thread they wait their turn).
    await this.lastWrite;
    await Promise.all([...this.threadWrites]);
    this.closed = true;
    await this.writeThread?.close();
    await this.reads?.close();
    this.statements.clear();
    if (this.ending) return this.ending();
    await this.checkpointer?.stop();
    // No `PRAGMA optimize` here: it would replace the planner statistics the schema seeds.
    this.db.close();
  }

  private insertRow(collection: SqliteCollection, document: StoredRecord): string {
    const json = JSON.stringify(document);
    const workspaceId = collection.definition.scope === 'workspace' ? (document.workspaceId as string) : null;
    this.statement(`INSERT INTO ${collection.columns.table} (id, workspace_id, doc) VALUES (?, ?, ?)`).run(document.id, workspaceId, json);
    keepUpWithInserts(this.prepare, collection, [document]);
    writeSideRows(this.prepare, collection, [document]);
    return json;
  }

  /** Inserts in multi-row statements (see sqlite-insert-runs.ts); must run inside a transaction. */
  private insertRows(collection: SqliteCollection, documents: StoredRecord[]): void {
    const inWorkspace = collection.definition.scope === 'workspace';
    let next = 0;
    for (const rows of INSERT_ROWS_PER_STATEMENT) {
      if (documents.length - next < rows) continue;
      const statement = this.statement(`INSERT INTO ${collection.columns.table} (id, workspace_id, doc) VALUES ${insertValues(rows)}`);
      const params: SqlValue[] = new Array<SqlValue>(rows * 3);
      while (documents.length - next >= rows) {
        for (let i = 0; i < rows; i++) {
          const document = documents[next + i]!;
          params[i * 3] = document.id;
          params[i * 3 + 1] = inWorkspace ? (document.workspaceId as string) : null;
          params[i * 3 + 2] = JSON.stringify(document);
        }
        statement.run(...params);
        next += rows;
      }
    }
    keepUpWithInserts(this.prepare, collection, documents);
    writeSideRows(this.prepare, collection, documents);
  }

  /** Read, change in JavaScript, write back: must run inside a transaction. */
  private updateRows(collection: SqliteCollection, where: Condition[], change: Change<unknown>, limit?: number): StoredRecord[] {
    const { sql, params } = selectToSql(
      { where, ...(limit === undefined ? {} : { limit }) },
      this.withSlots(collection, { where }).columns,
      'id, doc',
    );
    const rows = this.statement(sql)
      .pluck(false)
      .all(...params) as Row[];
    const write = this.statement(`UPDATE ${collection.columns.table} SET doc = ?, workspace_id = ? WHERE id = ?`);
    const documents = rows.map((row) => {
      const document = parse(row.doc);
      applyChange(document, change);
      const workspaceId = collection.definition.scope === 'workspace' ? (document.workspaceId as string) : null;
      write.run(JSON.stringify(document), workspaceId, row.id);
      return document;
    });
    writeSideRows(this.prepare, collection, documents);
    return documents;
  }

  private deleteRows(collection: SqliteCollection, where: Condition[]): number {
    const { sql, params } = whereToSql(where, collection.columns);
    return this.statement(`DELETE FROM ${collection.columns.table} WHERE ${sql}`).run(...params).changes;
  }

  private transaction<T>(work: () => T): T {
    return this.runInTransaction.immediate(work) as T;
  }

  private collection(definition: CollectionDefinition<any>): SqliteCollection {
    let collection = this.collections.get(definition.name);
    if (!collection) {
      collection = createCollectionSchema(this.db, definition, (sql) => this.statement(sql));
      this.collections.set(definition.name, collection);
    }
    return collection;
  }

  /**
   * Every statement is prepared once and never garbage-collected (see keep-alive.ts). Statement
   * texts vary only with a query's shape and its padded `in` lists, so there are few of them.
   */
  private statement(sql: string): Database.Statement<SqlValue[]> {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = keepAlive(this.db.prepare(sql));
      this.statements.set(sql, statement);
    }
    return statement as Database.Statement<SqlValue[]>;
  }

  /** Runs synchronous work and turns driver errors into StoreErrors. */
  private guard<T>(definition: CollectionDefinition<any> | undefined, work: (collection: SqliteCollection) => T): T {
    let collection: SqliteCollection | undefined;
    try {
      if (this.closed) throw new StoreError('unavailable', 'The store is closed');
      collection = definition ? this.collection(definition) : undefined;
      return work(collection as SqliteCollection);
    } catch (error) {
      throw mapError(error, collection);
    }
  }
}

/** The one workspace a query's conditions name, if they name one. */
function parse(json: string): StoredRecord {
  return JSON.parse(json) as StoredRecord;
}

function mapError(error: unknown, collection?: SqliteCollection): unknown {
  if (error instanceof StoreError) return error;
  // Duck-typed, not instanceof: the native addon keeps one error class per process, made in
  // whichever realm loaded it last (jest gives each test file its own), so neither SqliteError
  // nor even Error need be this module's.
  const { name, code, message } = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (name === 'SqliteError' && typeof code === 'string') {
    if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE') {
      const fields = collection ? duplicateFields(collection, text) : undefined;
      return new StoreError('duplicate', `Duplicate ${fields ? fields.join(', ') : 'key'}`, fields);
    }
    if (UNAVAILABLE_CODES.test(code)) return new StoreError('unavailable', `SQLite: ${text}`);
  }
  if (name === 'TypeError' && /database connection is not open/.test(text)) return new StoreError('unavailable', 'The store is closed');
  return error;
}
