/**
 * The production adapter: one mongoose connection per store (one database per service), one
 * model per collection with the id in `_id`. Units of work run in a MongoDB transaction, so the
 * deployment must be a replica set (a single-node replica set is enough for development).
 */
import mongoose, { ClientSession, Connection, Model, PipelineStage, Schema } from 'mongoose';
import { AggregateQuery, AggregateResult, Change, CollectionDefinition, Condition, Page, Query, StoreError } from '../port';
import { indexLayouts, IndexLayout } from '../index-layout';
import { AdapterWrite, StoreAdapter, StoredRecord } from '../store-adapter';
import { mongoIndexes } from './mongo-indexes';
import { bounded, isUnavailable, mongoConnectionOptions, OPERATION_TIME_LIMIT_MS } from './mongo-limits';
import { aggregatePipelines, readAggregate } from './mongo-aggregate';
import { changeToUpdate, MongoFilter, sortedPipeline, sortToMongo, whereToFilter } from './mongo-query';
import { searchedFields, TRIGRAMS, trigrams, trigramsOf, trigramsPath, withTrigrams } from './mongo-trigrams';

/** An upsert retries when a concurrent writer inserts the same id between its update and its insert. */
const UPSERT_ATTEMPTS = 3;
const DUPLICATE_KEY = 11000;
/** TypeMismatch (e.g. $inc on a string), PathNotViable, ConflictingUpdateOperators. */
const INVALID_UPDATE_CODES = new Set([14, 28, 40]);

type RawDocument = Record<string, unknown> & { _id: string };

interface MongoCollection {
  definition: CollectionDefinition<any>;
  model: Model<any>;
  layouts: IndexLayout[];
  /** Its textSearch fields, whose values keep their trigrams (mongo-trigrams.ts). */
  searched: ReadonlySet<string>;
}

/** A trigram backfill writes this many documents a round. */
const BACKFILL_BATCH = 500;

export class MongoStoreAdapter implements StoreAdapter {
  private constructor(
    private readonly connection: Connection,
    private readonly collections = new Map<string, Promise<MongoCollection>>(),
    /** A snapshot's session (snapshot reads: every read at one cluster time); its end instead of closing the connection. */
    private readonly readSession: ClientSession | null = null,
  ) {}

  /** Reads as of now until closed: a session with `snapshot: true` (MongoDB 5.0+, within its history window). */
  async snapshot(): Promise<StoreAdapter> {
    const session = await this.connection.startSession({ snapshot: true });
    return new MongoStoreAdapter(this.connection, this.collections, session);
  }

  static async open(
    url: string,
    database: string,
    collections: CollectionDefinition<any>[],
    serverSelectionTimeoutMs?: number,
  ): Promise<MongoStoreAdapter> {
    const connection = mongoose.createConnection(url, mongoConnectionOptions(database, serverSelectionTimeoutMs));
    try {
      await connection.asPromise();
      const adapter = new MongoStoreAdapter(connection);
      for (const collection of collections) await adapter.collection(collection);
      return adapter;
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw mapError(error);
    }
  }

  async find(definition: CollectionDefinition<any>, query: Query): Promise<StoredRecord[]> {
    return this.guard(definition, async ({ model, searched }) => {
      // MongoDB reads limit 0 as "no limit"; the port means no documents.
      if (query.limit === 0) return [];
      if ((query.sort ?? []).some((key) => key.unset === 'high')) {
        const stages = sortedPipeline(query.where ?? [], query.sort ?? [], query.offset, query.limit, searched);
        return (
          (await model
            .aggregate(stages as unknown as PipelineStage[])
            .option({ maxTimeMS: OPERATION_TIME_LIMIT_MS })
            .session(this.readSession)
            .exec()) as RawDocument[]
        ).map(fromMongo);
      }
      let cursor = bounded(model.find(whereToFilter(query.where ?? [], searched)).sort(sortToMongo(query.sort ?? []))).session(
        this.readSession,
      );
      if (query.offset) cursor = cursor.skip(query.offset);
      if (query.limit !== undefined) cursor = cursor.limit(query.limit);
      return ((await cursor.lean()) as RawDocument[]).map(fromMongo);
    });
  }

  async count(definition: CollectionDefinition<any>, where: Condition[]): Promise<number> {
    return this.guard(definition, ({ model, searched }) =>
      bounded(model.countDocuments(whereToFilter(where, searched)))
        .session(this.readSession)
        .exec(),
    );
  }

  async aggregate(definition: CollectionDefinition<any>, query: AggregateQuery): Promise<AggregateResult> {
    return this.guard(definition, async ({ model, searched }) => {
      const pipelines = aggregatePipelines(query, searched);
      const run = (stages: MongoFilter[]) =>
        model
          .aggregate(stages as unknown as PipelineStage[])
          .option({ maxTimeMS: OPERATION_TIME_LIMIT_MS })
          .session(this.readSession)
          .exec() as Promise<Parameters<typeof readAggregate>[1]>;
      const [groups, total] = await Promise.all([run(pipelines.groups), run(pipelines.total)]);
      return readAggregate(query, groups, total);
    });
  }

  async findPage(definition: CollectionDefinition<any>, query: Query): Promise<Page<StoredRecord>> {
    const [total, items] = await Promise.all([this.count(definition, query.where ?? []), this.find(definition, query)]);
    return { total, items };
  }

  async insert(definition: CollectionDefinition<any>, document: StoredRecord): Promise<StoredRecord> {
    return this.guard(definition, async (collection) => {
      await this.insertDocument(collection, document);
      return structuredClone(document);
    });
  }

  async updateOne(definition: CollectionDefinition<any>, where: Condition[], change: Change<unknown>): Promise<StoredRecord | null> {
    return this.guard(definition, (collection) => this.updateDocument(collection, whereToFilter(where, collection.searched), change));
  }

  async updateMany(definition: CollectionDefinition<any>, where: Condition[], change: Change<unknown>): Promise<number> {
    return this.guard(definition, (collection) => this.updateDocuments(collection, whereToFilter(where, collection.searched), change));
  }

  async upsert(
    definition: CollectionDefinition<any>,
    document: StoredRecord,
    change: Change<unknown>,
    scope: Condition[],
  ): Promise<StoredRecord> {
    return this.guard(definition, async (collection) => {
      const inScope = whereToFilter([{ field: 'id', op: 'eq', value: document.id }, ...scope], collection.searched);
      for (let attempt = 0; attempt < UPSERT_ATTEMPTS; attempt += 1) {
        const updated = await this.updateDocument(collection, inScope, change);
        if (updated) return updated;
        try {
          // A plain insert, not findOneAndUpdate with $setOnInsert: it stores exactly `document`
          // (no operator-conflict rules between the document and the change, works for a
          // document with only an id), and the unique _id still lets only one writer insert.
          await this.insertDocument(collection, document);
          return structuredClone(document);
        } catch (error) {
          // Another writer inserted the id first (apply the change on the next round), or the
          // id belongs to another scope (the next round finds nothing again and gives up).
          if (!isDuplicateKey(error) || duplicateFields(error, collection)?.[0] !== 'id') throw error;
        }
      }
      throw new StoreError('duplicate', `A ${definition.name} document with this id exists outside this scope`, ['id']);
    });
  }

  async deleteMany(definition: CollectionDefinition<any>, where: Condition[]): Promise<number> {
    return this.guard(
      definition,
      async ({ model, searched }) => (await bounded(model.deleteMany(whereToFilter(where, searched))).exec()).deletedCount,
    );
  }

  async commit(writes: AdapterWrite[]): Promise<void> {
    const resolved = await Promise.all(
      writes.map(async (write) => ({ write, collection: await this.guard(write.collection, async (c) => c) })),
    );
    let session: ClientSession | undefined;
    try {
      session = await this.connection.startSession();
      const active = session;
      // withTransaction re-runs the callback on transient errors (write conflicts), so it only issues writes.
      await active.withTransaction(async () => {
        for (const { write, collection } of resolved) {
          try {
            await this.applyWrite(write, collection, active);
          } catch (error) {
            // Only duplicates are translated here; transient errors must reach withTransaction as they are.
            throw isDuplicateKey(error) ? mapError(error, collection) : error;
          }
        }
      });
    } catch (error) {
      throw mapError(error);
    } finally {
      await session?.endSession();
    }
  }

  async ping(): Promise<boolean> {
    try {
      const db = this.connection.db;
      if (!db) return false;
      await db.admin().ping();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.readSession) return this.readSession.endSession();
    await this.connection.close();
  }

  private async applyWrite(write: AdapterWrite, collection: MongoCollection, session: ClientSession): Promise<void> {
    switch (write.kind) {
      case 'insert':
        await this.insertDocument(collection, write.document, session);
        return;
      case 'update': {
        const updated = await this.updateDocument(collection, whereToFilter(write.where, collection.searched), write.change, session);
        if (!updated && write.required) throw new StoreError('conflict', `No ${write.collection.name} document matches the update`);
        return;
      }
      case 'updateMany':
        await this.updateDocuments(collection, whereToFilter(write.where, collection.searched), write.change, session);
        return;
      case 'deleteMany':
        await bounded(collection.model.deleteMany(whereToFilter(write.where, collection.searched), { session })).exec();
        return;
    }
  }

  private async insertDocument(collection: MongoCollection, document: StoredRecord, session?: ClientSession): Promise<void> {
    await collection.model.insertMany([toMongo(document, collection.searched)], { lean: true, ...(session ? { session } : {}) });
  }

  private async updateDocument(
    { model, searched }: MongoCollection,
    filter: MongoFilter,
    change: Change<unknown>,
    session?: ClientSession,
  ): Promise<StoredRecord | null> {
    const update = changeToUpdate(withTrigrams(change, searched));
    const options = session ? { session } : {};
    const raw = update
      ? await bounded(model.findOneAndUpdate(filter, update, { ...options, returnDocument: 'after', lean: true }).sort({ _id: 1 })).exec()
      : await bounded(model.findOne(filter, null, options).sort({ _id: 1 }).lean()).exec();
    return raw ? fromMongo(raw as RawDocument) : null;
  }

  private async updateDocuments(
    { model, searched }: MongoCollection,
    filter: MongoFilter,
    change: Change<unknown>,
    session?: ClientSession,
  ): Promise<number> {
    const update = changeToUpdate(withTrigrams(change, searched));
    const options = session ? { session } : {};
    if (!update) return bounded(model.countDocuments(filter, options)).exec();
    return (await bounded(model.updateMany(filter, update, options)).exec()).matchedCount;
  }

  /** The collection's model, created (with its indexes) on first use. */
  private collection(definition: CollectionDefinition<any>): Promise<MongoCollection> {
    let collection = this.collections.get(definition.name);
    if (!collection) {
      collection = this.createCollection(definition);
      this.collections.set(definition.name, collection);
      collection.catch(() => this.collections.delete(definition.name));
    }
    return collection;
  }

  private async createCollection(definition: CollectionDefinition<any>): Promise<MongoCollection> {
    const layouts = indexLayouts(definition);
    const schema = new Schema(
      { _id: String },
      { strict: false, strictQuery: false, versionKey: false, minimize: false, autoIndex: false, autoCreate: false, id: false },
    );
    for (const { keys, options } of mongoIndexes(definition)) schema.index(keys, options);
    const model = this.connection.model(definition.name, schema, definition.name);
    await model.createCollection().catch((error: unknown) => {
      // NamespaceExists: created by an earlier start or another replica.
      if ((error as { code?: number }).code !== 48) throw error;
    });
    // The indexes the definition declares, and no others: one a newer version no longer declares is
    // dropped (syncIndexes), so a list that stopped filtering on a field stops paying for its index.
    await model.syncIndexes();
    const searched = searchedFields(definition);
    await backfillTrigrams(model, searched);
    return { definition, model, layouts, searched };
  }

  private async guard<T>(definition: CollectionDefinition<any>, work: (collection: MongoCollection) => Promise<T>): Promise<T> {
    let collection: MongoCollection | undefined;
    try {
      collection = await this.collection(definition);
      return await work(collection);
    } catch (error) {
      throw mapError(error, collection);
    }
  }
}

function toMongo(document: StoredRecord, searched: ReadonlySet<string>): RawDocument {
  const { id, ...rest } = document;
  const grams = trigramsOf(rest, searched);
  return { _id: id, ...rest, ...(grams ? { [TRIGRAMS]: grams } : {}) };
}

function fromMongo(raw: RawDocument): StoredRecord {
  const { _id, __v: _version, [TRIGRAMS]: _trigrams, ...rest } = raw;
  return { id: _id, ...rest };
}

/**
 * Gives the trigrams to documents written before their field was searched (or by a version without
 * them), a batch at a time, so that the `$all` of a search never misses one. Starts on every start
 * and replica; each document is written once, whoever gets there first.
 */
async function backfillTrigrams(model: Model<any>, searched: ReadonlySet<string>): Promise<void> {
  for (const field of searched) {
    const missing = { [field]: { $type: 'string' }, [trigramsPath(field)]: { $exists: false } };
    for (;;) {
      const batch = (await bounded(
        model
          .find(missing, { [field]: 1 })
          .limit(BACKFILL_BATCH)
          .lean(),
      ).exec()) as RawDocument[];
      if (batch.length === 0) break;
      // Only while the value is the one read: a writer that changed it since wrote its own trigrams.
      const written = await model.bulkWrite(
        batch.map((raw) => ({
          updateOne: {
            filter: { _id: raw._id, [field]: { $eq: raw[field] } },
            update: { $set: { [trigramsPath(field)]: trigrams(String(raw[field])) } },
          },
        })),
        { ordered: false },
      );
      // A round that matched nothing would read the same documents again (an older replica still
      // writing without trigrams): leave them to the next start.
      if (written.matchedCount === 0) break;
    }
  }
}

function isDuplicateKey(error: unknown): boolean {
  const e = error as { code?: unknown; writeErrors?: { code?: unknown }[] };
  return e?.code === DUPLICATE_KEY || e?.writeErrors?.some((w) => w.code === DUPLICATE_KEY) === true;
}

function duplicateFields(error: unknown, collection?: MongoCollection): string[] | undefined {
  const message = String((error as { message?: unknown }).message ?? '');
  const indexName = /index: (\S+) dup key/.exec(message)?.[1];
  if (indexName === '_id_') return ['id'];
  const layout = collection?.layouts.find((l) => l.name === indexName);
  if (layout) return layout.declared;
  const keyPattern = (error as { keyPattern?: Record<string, unknown> }).keyPattern;
  if (!keyPattern) return undefined;
  const keys = Object.keys(keyPattern).map((key) => (key === '_id' ? 'id' : key));
  return collection?.definition.scope === 'workspace' ? keys.filter((key) => key !== 'workspaceId') : keys;
}

function mapError(error: unknown, collection?: MongoCollection): unknown {
  if (error instanceof StoreError) return error;
  if (isDuplicateKey(error)) {
    const fields = duplicateFields(error, collection);
    return new StoreError('duplicate', `Duplicate ${fields ? fields.join(', ') : 'key'}`, fields);
  }
  const e = error as { name?: unknown; code?: unknown; message?: unknown };
  if (typeof e?.code === 'number' && INVALID_UPDATE_CODES.has(e.code)) return new StoreError('invalid_query', String(e.message));
  // A failover, a stepdown or a time limit: the caller answers 503, and the client retries.
  if (isUnavailable(error)) return new StoreError('unavailable', `MongoDB: ${String(e.message)}`);
  return error;
}
