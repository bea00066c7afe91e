/**
 * The tenancy rule, written once for every adapter: a workspace collection is reached only
 * through forWorkspace(id), which adds `workspaceId = id` to every read, update, delete and
 * count and stamps it on every insert; a global collection only through global(). Inputs are
 * validated here before any adapter sees them.
 */
import {
  AggregateQuery,
  AggregateResult,
  Change,
  CollectionDefinition,
  Condition,
  DocumentStore,
  Page,
  Query,
  ScopedStore,
  StoredDocument,
  StoreError,
  UpdateOptions,
  WriteOp,
} from './port';
import { AdapterWrite, StoreAdapter, StoredRecord } from './store-adapter';
import {
  assertAggregateQuery,
  assertChange,
  assertCollectionName,
  assertConditions,
  assertDocument,
  assertFieldName,
  assertId,
  assertQuery,
  changePaths,
} from './validate-query';

/** Keeps `id IN (...)` lists well under SQLite's bound-parameter limit. */
const GET_MANY_CHUNK = 500;

type Scope = { kind: 'workspace'; workspaceId: string } | { kind: 'global' };

export function createDocumentStore(adapter: StoreAdapter): DocumentStore {
  return {
    forWorkspace(workspaceId: string): ScopedStore {
      if (typeof workspaceId !== 'string' || workspaceId.length === 0) {
        throw new StoreError('wrong_scope', 'forWorkspace needs a non-empty workspace id');
      }
      return new ScopedDocumentStore(adapter, { kind: 'workspace', workspaceId });
    },
    global(): ScopedStore {
      return new ScopedDocumentStore(adapter, { kind: 'global' });
    },
    async purge(collection, where, limit) {
      const found = await purgeCandidates(adapter, collection, where, limit);
      if (found.length === 0) return 0;
      // `where` again: a document changed since it was read (a run restarted) is kept.
      return adapter.deleteMany(collection, [{ field: 'id', op: 'in', values: found.map((d) => d.id) }, ...where]);
    },
    async findAcrossWorkspaces(collection, query) {
      assertCollectionName(collection.name);
      assertQuery(query);
      if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > GET_MANY_CHUNK) {
        throw new StoreError('invalid_query', `findAcrossWorkspaces takes a limit from 1 to ${GET_MANY_CHUNK}`);
      }
      return (await adapter.find(collection, { where: query.where, sort: query.sort, limit: query.limit })) as never[];
    },
    async openSnapshot() {
      if (!adapter.snapshot) throw new StoreError('unavailable', 'This store cannot read a snapshot.');
      return createDocumentStore(await adapter.snapshot());
    },
    async indexField(collection, field, workspaceId) {
      assertDynamicField(collection, field);
      await adapter.indexField?.(collection, field, workspaceId);
    },
    async dropFieldIndex(collection, field, workspaceId) {
      assertDynamicField(collection, field);
      await adapter.dropFieldIndex?.(collection, field, workspaceId);
    },
    readsSettled: async (maxWaitMs) => adapter.readsSettled?.(maxWaitMs),
    readQueue: () => adapter.readQueue?.() ?? { workers: 0, running: 0, waiting: 0 },
    ping: () => adapter.ping(),
    close: () => adapter.close(),
  };
}

/** A field of one of the collection's `dynamicFields` sub-documents (`customFields.plan`). */
function assertDynamicField(collection: CollectionDefinition<any>, field: string): void {
  assertCollectionName(collection.name);
  assertFieldName(field);
  const parent = field.slice(0, field.indexOf('.'));
  if (collection.scope !== 'workspace' || !field.includes('.') || !(collection.dynamicFields ?? []).includes(parent)) {
    throw new StoreError('invalid_query', `${field} is not a field of a dynamic sub-document of ${collection.name}`);
  }
}

/** Oldest first by the first range condition's field, so an index across workspaces serves the read. */
async function purgeCandidates(
  adapter: StoreAdapter,
  collection: CollectionDefinition<any>,
  where: Condition[],
  limit: number,
): Promise<StoredRecord[]> {
  assertCollectionName(collection.name);
  assertConditions(where);
  if (!Number.isInteger(limit) || limit < 1 || limit > GET_MANY_CHUNK) {
    throw new StoreError('invalid_query', `purge takes a limit from 1 to ${GET_MANY_CHUNK}`);
  }
  return adapter.find(collection, purgeQuery(where, limit));
}

/** The read of a purge: oldest first by its first range condition's field. */
export function purgeQuery(where: Condition[], limit: number): Query & { where: Condition[]; limit: number } {
  const range = where.find((c): c is Extract<Condition, { op: string }> => 'op' in c && (c.op === 'lt' || c.op === 'lte'));
  return { where, limit, ...(range ? { sort: [{ field: range.field, direction: 'asc' as const }] } : {}) };
}

class ScopedDocumentStore implements ScopedStore {
  constructor(
    private readonly adapter: StoreAdapter,
    private readonly scope: Scope,
  ) {}

  async get<T extends StoredDocument>(collection: CollectionDefinition<T>, id: string): Promise<T | null> {
    assertId(id);
    const [document] = await this.adapter.find(collection, { where: [...this.conditions(collection), idIs(id)], limit: 1 });
    return (document as T | undefined) ?? null;
  }

  async getMany<T extends StoredDocument>(collection: CollectionDefinition<T>, ids: string[]): Promise<T[]> {
    if (!Array.isArray(ids)) throw new StoreError('invalid_query', 'getMany needs a list of ids');
    ids.forEach(assertId);
    const scope = this.conditions(collection);
    const unique = [...new Set(ids)];
    const found: StoredRecord[] = [];
    for (let start = 0; start < unique.length; start += GET_MANY_CHUNK) {
      const values = unique.slice(start, start + GET_MANY_CHUNK);
      found.push(...(await this.adapter.find(collection, { where: [...scope, { field: 'id', op: 'in', values }] })));
    }
    return found as T[];
  }

  async find<T extends StoredDocument>(collection: CollectionDefinition<T>, query: Query = {}): Promise<T[]> {
    assertQuery(query);
    const where = [...this.conditions(collection), ...(query.where ?? [])];
    return (await this.adapter.find(collection, { ...query, where })) as T[];
  }

  async findOne<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[]): Promise<T | null> {
    const [document] = await this.find(collection, { where, limit: 1 });
    return document ?? null;
  }

  async count<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[] = []): Promise<number> {
    assertConditions(where);
    return this.adapter.count(collection, [...this.conditions(collection), ...where]);
  }

  async findPage<T extends StoredDocument>(collection: CollectionDefinition<T>, query: Query): Promise<Page<T>> {
    assertQuery(query);
    const where = [...this.conditions(collection), ...(query.where ?? [])];
    return (await this.adapter.findPage(collection, { ...query, where })) as Page<T>;
  }

  async aggregate<T extends StoredDocument>(collection: CollectionDefinition<T>, query: AggregateQuery): Promise<AggregateResult> {
    assertAggregateQuery(query);
    return this.adapter.aggregate(collection, { ...query, where: [...this.conditions(collection), ...(query.where ?? [])] });
  }

  async insert<T extends StoredDocument>(collection: CollectionDefinition<T>, document: T): Promise<T> {
    return (await this.adapter.insert(collection, this.stamp(collection, document))) as T;
  }

  async update<T extends StoredDocument>(
    collection: CollectionDefinition<T>,
    id: string,
    change: Change<T>,
    options: UpdateOptions = {},
  ): Promise<T | null> {
    const where = this.updateConditions(collection, id, options.where ?? []);
    this.checkChange(collection, change);
    return (await this.adapter.updateOne(collection, where, change)) as T | null;
  }

  async updateMany<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[], change: Change<T>): Promise<number> {
    assertConditions(where);
    const scoped = [...this.conditions(collection), ...where];
    this.checkChange(collection, change);
    return this.adapter.updateMany(collection, scoped, change);
  }

  async upsert<T extends StoredDocument>(collection: CollectionDefinition<T>, document: T, change: Change<T>): Promise<T> {
    const stamped = this.stamp(collection, document);
    this.checkChange(collection, change);
    return (await this.adapter.upsert(collection, stamped, change, this.conditions(collection))) as T;
  }

  async delete<T extends StoredDocument>(collection: CollectionDefinition<T>, id: string): Promise<boolean> {
    assertId(id);
    return (await this.adapter.deleteMany(collection, [...this.conditions(collection), idIs(id)])) > 0;
  }

  async deleteMany<T extends StoredDocument>(collection: CollectionDefinition<T>, where: Condition[]): Promise<number> {
    assertConditions(where);
    return this.adapter.deleteMany(collection, [...this.conditions(collection), ...where]);
  }

  async commit(ops: WriteOp[]): Promise<void> {
    if (!Array.isArray(ops)) throw new StoreError('invalid_query', 'commit needs a list of writes');
    if (ops.length === 0) return;
    // A workspace's unit of work may also write global documents that belong with it (a login
    // lookup beside its user); those go through the global scope's rules, everything else through ours.
    const global = this.scope.kind === 'workspace' ? new ScopedDocumentStore(this.adapter, { kind: 'global' }) : this;
    await this.adapter.commit(ops.map((op) => (op.collection?.scope === 'global' ? global : this).toAdapterWrite(op)));
  }

  private toAdapterWrite(op: WriteOp): AdapterWrite {
    const collection = op.collection;
    switch (op.kind) {
      case 'insert':
        return { kind: 'insert', collection, document: this.stamp(collection, op.document) };
      case 'update':
        this.checkChange(collection, op.change);
        return {
          kind: 'update',
          collection,
          where: this.updateConditions(collection, op.id, op.where ?? []),
          change: op.change,
          required: op.required !== false,
        };
      case 'delete':
        assertId(op.id);
        return { kind: 'deleteMany', collection, where: [...this.conditions(collection), idIs(op.id)] };
      case 'deleteMany':
        assertConditions(op.where);
        return { kind: 'deleteMany', collection, where: [...this.conditions(collection), ...op.where] };
      case 'updateMany':
        assertConditions(op.where);
        this.checkChange(collection, op.change);
        return { kind: 'updateMany', collection, where: [...this.conditions(collection), ...op.where], change: op.change };
      default:
        throw new StoreError('invalid_query', `Unknown write: ${JSON.stringify((op as { kind?: unknown }).kind)}`);
    }
  }

  /** The conditions that confine a collection to this scope; refuses a collection of the other scope. */
  private conditions(collection: CollectionDefinition<any>): Condition[] {
    if (typeof collection !== 'object' || collection === null) throw new StoreError('invalid_query', 'Unknown collection');
    assertCollectionName(collection.name);
    if (collection.scope !== 'workspace' && collection.scope !== 'global') {
      throw new StoreError('invalid_query', `Collection ${collection.name} has no valid scope`);
    }
    if (collection.scope !== this.scope.kind) {
      const reach = collection.scope === 'workspace' ? 'store.forWorkspace(id)' : 'store.global()';
      throw new StoreError('wrong_scope', `Collection ${collection.name} is a ${collection.scope} collection; use ${reach}`);
    }
    return this.scope.kind === 'workspace' ? [{ field: 'workspaceId', op: 'eq', value: this.scope.workspaceId }] : [];
  }

  private updateConditions(collection: CollectionDefinition<any>, id: string, where: Condition[]): Condition[] {
    assertId(id);
    assertConditions(where);
    return [...this.conditions(collection), idIs(id), ...where];
  }

  private stamp(collection: CollectionDefinition<any>, document: StoredDocument): StoredRecord {
    this.conditions(collection);
    assertDocument(document);
    if (this.scope.kind === 'global') return { ...document };
    if (document.workspaceId !== undefined && document.workspaceId !== this.scope.workspaceId) {
      throw new StoreError(
        'wrong_scope',
        `A document of workspace ${String(document.workspaceId)} cannot be written from another workspace`,
      );
    }
    return { ...document, workspaceId: this.scope.workspaceId };
  }

  private checkChange(collection: CollectionDefinition<any>, change: Change<unknown>): void {
    assertChange(change);
    if (collection.scope === 'workspace' && changePaths(change).some((p) => p === 'workspaceId' || p.startsWith('workspaceId.'))) {
      throw new StoreError('wrong_scope', 'A document cannot be moved to another workspace');
    }
  }
}

function idIs(id: string): Condition {
  return { field: 'id', op: 'eq', value: id };
}
