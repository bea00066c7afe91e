/**
 * The contract every adapter keeps, run against each one that is reachable: SQLite always (a
 * file and ':memory:'), MongoDB when MONGO_URL points at a replica set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mongoose from 'mongoose';
import {
  afterCursor,
  afterKeys,
  CollectionDefinition,
  Condition,
  CursorError,
  decodeCursor,
  encodeCursor,
  defineCollection,
  listPage,
  DocumentStore,
  openStore,
  ScopedStore,
  SortKey,
  StoredDocument,
  StoreError,
  StoreLocation,
  WriteOp,
} from './index';

interface Contact extends StoredDocument {
  name: string;
  stage?: string;
  score?: number;
  vip?: boolean;
  email?: string | null;
  tags?: string[];
  createdAt?: string;
  address?: { city?: string; zip?: string };
  usage?: Record<string, number>;
  visits?: number;
}

interface Account extends StoredDocument {
  slug: string;
}

interface User extends StoredDocument {
  login: string;
  workspaceId?: string;
}

const contacts = defineCollection<Contact>({
  name: 'contacts',
  scope: 'workspace',
  fields: { stage: 'string', createdAt: 'string', score: 'number', vip: 'boolean', email: 'string' },
  indexes: [{ fields: ['stage', 'createdAt'] }, { fields: ['createdAt'] }, { fields: ['email'], unique: true, sparse: true }],
});
/** Searched through a text index where the adapter has one (SQLite: FTS5 trigrams); answers as contacts' undeclared name does. */
const people = defineCollection<Contact>({
  name: 'people',
  scope: 'workspace',
  fields: { name: 'string', stage: 'string', createdAt: 'string' },
  indexes: [{ fields: ['createdAt'] }],
  textSearch: ['name'],
});
const accounts = defineCollection<Account>({ name: 'accounts', scope: 'workspace', indexes: [{ fields: ['slug'], unique: true }] });
const users = defineCollection<User>({
  name: 'users',
  scope: 'global',
  fields: { login: 'string' },
  indexes: [{ fields: ['login'], unique: true }],
});
const collections: CollectionDefinition<any>[] = [contacts, people, accounts, users];

const mongoUrl = process.env.MONGO_URL;
const tempDir = mkdtempSync(join(tmpdir(), 'crm-store-'));
const mongoDatabase = `crm_store_contract_${process.pid}_${Date.now()}`;

interface Target {
  name: string;
  /** A store over an empty database: each test starts from nothing, as ids are unique per collection. */
  open(): Promise<DocumentStore>;
}

let fileSequence = 0;

const targets: Target[] = [
  {
    name: 'SQLite file',
    open: () => openStore({ location: { kind: 'sqlite', file: join(tempDir, `contract-${(fileSequence += 1)}.db`) }, collections }),
  },
  {
    // Reads on worker threads with connections of their own, writes on this one (sqlite-read-pool.ts).
    name: 'SQLite file, reads on worker threads',
    open: () =>
      openStore({ location: { kind: 'sqlite', file: join(tempDir, `contract-${(fileSequence += 1)}.db`), readWorkers: 2 }, collections }),
  },
  { name: 'SQLite :memory:', open: () => openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections }) },
  ...(mongoUrl
    ? [
        {
          name: 'MongoDB',
          open: async () => {
            await clearMongo(mongoUrl);
            return openStore({ location: { kind: 'mongo', url: mongoUrl, database: mongoDatabase }, collections });
          },
        },
      ]
    : []),
];

/** Empties the test database's collections, keeping their indexes (re-creating them per test is slow). */
async function clearMongo(url: string): Promise<void> {
  const connection = await mongoose.createConnection(url, { dbName: mongoDatabase }).asPromise();
  try {
    for (const collection of collections) await connection.collection(collection.name).deleteMany({});
  } finally {
    await connection.close();
  }
}

beforeAll(() => {
  if (!mongoUrl)
    console.warn(
      'MongoDB contract run skipped: MONGO_URL is not set (it needs a replica set, e.g. mongodb://localhost:27017/?replicaSet=rs0).',
    );
});

afterAll(async () => {
  rmSync(tempDir, { recursive: true, force: true });
  if (mongoUrl) {
    const connection = await mongoose.createConnection(mongoUrl, { dbName: mongoDatabase }).asPromise();
    await connection.dropDatabase();
    await connection.close();
  }
});

if (!mongoUrl) {
  describe.skip('MongoDB (skipped: MONGO_URL is not set)', () => {
    it('keeps the store contract', () => undefined);
  });
}

let sequence = 0;
function unique(prefix: string): string {
  sequence += 1;
  return `${prefix}-${sequence}-${Math.random().toString(36).slice(2, 8)}`;
}

async function storeError(promise: Promise<unknown>): Promise<StoreError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StoreError) return error;
    throw error;
  }
  throw new Error('Expected a StoreError, but the call succeeded');
}

/** Casts a hostile value past the types, as a caller passing parsed JSON through could. */
function hostile(value: unknown): any {
  return value;
}

describe.each(targets)('document store on $name', (target) => {
  let store: DocumentStore;
  let ws: ScopedStore;

  beforeEach(async () => {
    store = await target.open();
    ws = store.forWorkspace(unique('ws'));
  });
  afterEach(async () => {
    await store.close();
  });

  async function ids(where: Condition[], scoped: ScopedStore = ws): Promise<string[]> {
    return (await scoped.find(contacts, { where })).map((c) => c.id).sort();
  }

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBe(true);
  });

  describe('CRUD', () => {
    it('inserts a document, stamps its workspace and reads it back', async () => {
      const inserted = await ws.insert(contacts, { id: 'c1', name: 'Ada', address: { city: 'London' }, tags: ['a'] });
      const read = await ws.get(contacts, 'c1');
      expect(read).toEqual(inserted);
      expect(read).toMatchObject({ id: 'c1', name: 'Ada', address: { city: 'London' }, tags: ['a'] });
      expect(typeof read?.workspaceId).toBe('string');
    });

    it('returns null for an unknown id', async () => {
      await expect(ws.get(contacts, 'missing')).resolves.toBeNull();
    });

    it('returns the known documents of getMany and leaves unknown ids out', async () => {
      await ws.insert(contacts, { id: 'a', name: 'A' });
      await ws.insert(contacts, { id: 'b', name: 'B' });
      const found = await ws.getMany(contacts, ['a', 'b', 'zzz', 'a']);
      expect(found.map((c) => c.id).sort()).toEqual(['a', 'b']);
      await expect(ws.getMany(contacts, [])).resolves.toEqual([]);
    });

    it('refuses a second document with the same id as a duplicate of id', async () => {
      await ws.insert(contacts, { id: 'same', name: 'First' });
      const error = await storeError(ws.insert(contacts, { id: 'same', name: 'Second' }));
      expect(error.code).toBe('duplicate');
      expect(error.fields).toEqual(['id']);
      expect((await ws.get(contacts, 'same'))?.name).toBe('First');
    });

    it('finds one document by a condition', async () => {
      await ws.insert(contacts, { id: 'x', name: 'Xena', stage: 'lead' });
      await expect(ws.findOne(contacts, [{ field: 'stage', op: 'eq', value: 'lead' }])).resolves.toMatchObject({ id: 'x' });
      await expect(ws.findOne(contacts, [{ field: 'stage', op: 'eq', value: 'none' }])).resolves.toBeNull();
    });

    it('updates a document and returns the new version', async () => {
      await ws.insert(contacts, { id: 'u', name: 'Old', stage: 'lead' });
      const updated = await ws.update(contacts, 'u', { set: { name: 'New' } });
      expect(updated).toMatchObject({ id: 'u', name: 'New', stage: 'lead' });
      await expect(ws.get(contacts, 'u')).resolves.toEqual(updated);
    });

    it('returns null when updating an unknown id', async () => {
      await expect(ws.update(contacts, 'nobody', { set: { name: 'X' } })).resolves.toBeNull();
    });

    it('deletes a document once', async () => {
      await ws.insert(contacts, { id: 'd', name: 'D' });
      await expect(ws.delete(contacts, 'd')).resolves.toBe(true);
      await expect(ws.delete(contacts, 'd')).resolves.toBe(false);
      await expect(ws.get(contacts, 'd')).resolves.toBeNull();
    });

    it('updates and deletes many documents and counts them', async () => {
      for (const id of ['m1', 'm2', 'm3']) await ws.insert(contacts, { id, name: id, stage: id === 'm3' ? 'customer' : 'lead' });
      await expect(ws.updateMany(contacts, [{ field: 'stage', op: 'eq', value: 'lead' }], { set: { vip: true } })).resolves.toBe(2);
      await expect(ws.count(contacts, [{ field: 'vip', op: 'eq', value: true }])).resolves.toBe(2);
      await expect(ws.deleteMany(contacts, [{ field: 'vip', op: 'eq', value: true }])).resolves.toBe(2);
      await expect(ws.count(contacts)).resolves.toBe(1);
    });

    it('purges matching documents of every workspace, at most the limit per call', async () => {
      const other = store.forWorkspace(unique('ws'));
      for (const [scoped, prefix] of [
        [ws, 'a'],
        [other, 'b'],
      ] as const) {
        for (let i = 0; i < 3; i += 1)
          await scoped.insert(contacts, { id: `${prefix}old${i}`, name: 'old', createdAt: '2020-01-01T00:00:00Z' });
        await scoped.insert(contacts, { id: `${prefix}new`, name: 'new', createdAt: '2030-01-01T00:00:00Z' });
      }
      const old: Condition[] = [{ field: 'createdAt', op: 'lt', value: '2025-01-01T00:00:00Z' }];
      await expect(store.purge(contacts, old, 4)).resolves.toBe(4);
      await expect(store.purge(contacts, old, 4)).resolves.toBe(2);
      await expect(store.purge(contacts, old, 4)).resolves.toBe(0);
      expect([...(await ids([])), ...(await ids([], other))]).toEqual(['anew', 'bnew']);
      expect((await storeError(store.purge(contacts, old, 0))).code).toBe('invalid_query');
    });

    it('finds across workspaces, sorted and limited, each document with its workspace', async () => {
      const [wsA, wsB] = [unique('ws'), unique('ws')];
      const name = unique('swept');
      for (const [workspaceId, day] of [
        [wsA, '03'],
        [wsB, '01'],
        [wsA, '02'],
        [wsB, '04'],
      ] as const) {
        await store.forWorkspace(workspaceId).insert(contacts, { id: unique('c'), name, createdAt: `2026-01-${day}T00:00:00Z` });
      }
      const found = await store.findAcrossWorkspaces(contacts, {
        where: [{ field: 'name', op: 'eq', value: name }],
        sort: [{ field: 'createdAt', direction: 'asc' }],
        limit: 3,
      });
      expect(found.map((d) => [d.workspaceId, d.createdAt])).toEqual([
        [wsB, '2026-01-01T00:00:00Z'],
        [wsA, '2026-01-02T00:00:00Z'],
        [wsA, '2026-01-03T00:00:00Z'],
      ]);
      expect((await storeError(store.findAcrossWorkspaces(contacts, { where: [], limit: 501 }))).code).toBe('invalid_query');
    });

    it('keeps global documents reachable through global()', async () => {
      const login = unique('login');
      await store.global().insert(users, { id: login, login });
      await expect(store.global().get(users, login)).resolves.toEqual({ id: login, login });
    });
  });

  describe('operators', () => {
    beforeEach(async () => {
      await ws.insert(contacts, {
        id: 'a',
        name: 'Alice',
        stage: 'lead',
        score: 10,
        vip: true,
        tags: ['x', 'y'],
        email: 'alice@example.com',
        createdAt: '2026-01-01T00:00:00.000Z',
        address: { city: 'Paris' },
      });
      await ws.insert(contacts, {
        id: 'b',
        name: 'Bob',
        stage: 'customer',
        score: 20,
        vip: false,
        tags: ['y'],
        createdAt: '2026-01-02T00:00:00.000Z',
        address: { city: 'Berlin' },
      });
      await ws.insert(contacts, {
        id: 'c',
        name: 'Carol',
        stage: 'lead',
        score: 30,
        tags: [],
        email: null,
        createdAt: '2026-01-03T00:00:00.000Z',
      });
      await ws.insert(contacts, { id: 'd', name: 'dave', stage: 'lost', score: 5.5, vip: false, createdAt: '2026-01-04T00:00:00.000Z' });
    });

    it('eq matches declared, undeclared and nested fields', async () => {
      await expect(ids([{ field: 'stage', op: 'eq', value: 'lead' }])).resolves.toEqual(['a', 'c']);
      await expect(ids([{ field: 'name', op: 'eq', value: 'Bob' }])).resolves.toEqual(['b']);
      await expect(ids([{ field: 'address.city', op: 'eq', value: 'Paris' }])).resolves.toEqual(['a']);
      await expect(ids([{ field: 'score', op: 'eq', value: 5.5 }])).resolves.toEqual(['d']);
      await expect(ids([{ field: 'id', op: 'eq', value: 'c' }])).resolves.toEqual(['c']);
    });

    it('eq matches booleans', async () => {
      await expect(ids([{ field: 'vip', op: 'eq', value: true }])).resolves.toEqual(['a']);
      await expect(ids([{ field: 'vip', op: 'eq', value: false }])).resolves.toEqual(['b', 'd']);
    });

    it('eq null matches absent and null fields', async () => {
      await expect(ids([{ field: 'email', op: 'eq', value: null }])).resolves.toEqual(['b', 'c', 'd']);
    });

    it('eq does not convert between numbers and strings', async () => {
      await expect(ids([{ field: 'score', op: 'eq', value: '10' }])).resolves.toEqual([]);
    });

    it('ne matches everything else, absent fields included', async () => {
      await expect(ids([{ field: 'stage', op: 'ne', value: 'lead' }])).resolves.toEqual(['b', 'd']);
      await expect(ids([{ field: 'vip', op: 'ne', value: true }])).resolves.toEqual(['b', 'c', 'd']);
      await expect(ids([{ field: 'email', op: 'ne', value: null }])).resolves.toEqual(['a']);
    });

    it('in and nin match against a list', async () => {
      await expect(ids([{ field: 'stage', op: 'in', values: ['lead', 'lost'] }])).resolves.toEqual(['a', 'c', 'd']);
      await expect(ids([{ field: 'stage', op: 'in', values: [] }])).resolves.toEqual([]);
      await expect(ids([{ field: 'email', op: 'in', values: [null, 'alice@example.com'] }])).resolves.toEqual(['a', 'b', 'c', 'd']);
      await expect(ids([{ field: 'stage', op: 'nin', values: ['lead'] }])).resolves.toEqual(['b', 'd']);
      await expect(ids([{ field: 'vip', op: 'nin', values: [true] }])).resolves.toEqual(['b', 'c', 'd']);
      await expect(ids([{ field: 'stage', op: 'nin', values: [] }])).resolves.toEqual(['a', 'b', 'c', 'd']);
      await expect(ids([{ field: 'email', op: 'nin', values: [null] }])).resolves.toEqual(['a']);
    });

    it('gt, gte, lt and lte compare numbers', async () => {
      await expect(ids([{ field: 'score', op: 'gt', value: 10 }])).resolves.toEqual(['b', 'c']);
      await expect(ids([{ field: 'score', op: 'gte', value: 10 }])).resolves.toEqual(['a', 'b', 'c']);
      await expect(ids([{ field: 'score', op: 'lt', value: 10 }])).resolves.toEqual(['d']);
      await expect(ids([{ field: 'score', op: 'lte', value: 5.5 }])).resolves.toEqual(['d']);
    });

    it('gt, gte, lt and lte compare ISO timestamps as strings', async () => {
      await expect(ids([{ field: 'createdAt', op: 'gte', value: '2026-01-02T00:00:00.000Z' }])).resolves.toEqual(['b', 'c', 'd']);
      await expect(ids([{ field: 'createdAt', op: 'lt', value: '2026-01-02' }])).resolves.toEqual(['a']);
      await expect(
        ids([
          { field: 'createdAt', op: 'gt', value: '2026-01-01T00:00:00.000Z' },
          { field: 'createdAt', op: 'lte', value: '2026-01-03T00:00:00.000Z' },
        ]),
      ).resolves.toEqual(['b', 'c']);
    });

    it('a number bound never matches strings and a string bound never matches numbers', async () => {
      await expect(ids([{ field: 'name', op: 'gt', value: 0 }])).resolves.toEqual([]);
      await expect(ids([{ field: 'score', op: 'lt', value: 'zzz' }])).resolves.toEqual([]);
    });

    it('contains_text matches a substring regardless of case', async () => {
      await expect(ids([{ field: 'name', op: 'contains_text', value: 'AL' }])).resolves.toEqual(['a']);
      await expect(ids([{ field: 'name', op: 'contains_text', value: 'o' }])).resolves.toEqual(['b', 'c']);
      await expect(ids([{ field: 'name', op: 'contains_text', value: 'DAVE' }])).resolves.toEqual(['d']);
      await expect(ids([{ field: 'score', op: 'contains_text', value: '1' }])).resolves.toEqual([]);
    });

    it('has matches an element of an array field', async () => {
      await expect(ids([{ field: 'tags', op: 'has', value: 'y' }])).resolves.toEqual(['a', 'b']);
      await expect(ids([{ field: 'tags', op: 'has', value: 'x' }])).resolves.toEqual(['a']);
      await expect(ids([{ field: 'name', op: 'has', value: 'Bob' }])).resolves.toEqual([]);
    });

    it('exists tells present non-null fields from absent or null ones', async () => {
      await expect(ids([{ field: 'tags', op: 'exists', value: true }])).resolves.toEqual(['a', 'b', 'c']);
      await expect(ids([{ field: 'tags', op: 'exists', value: false }])).resolves.toEqual(['d']);
      await expect(ids([{ field: 'email', op: 'exists', value: true }])).resolves.toEqual(['a']);
      await expect(ids([{ field: 'email', op: 'exists', value: false }])).resolves.toEqual(['b', 'c', 'd']);
      await expect(ids([{ field: 'address.city', op: 'exists', value: true }])).resolves.toEqual(['a', 'b']);
    });

    it('or matches any of its groups, and groups AND their conditions', async () => {
      await expect(
        ids([{ or: [[{ field: 'stage', op: 'eq', value: 'customer' }], [{ field: 'score', op: 'gte', value: 30 }]] }]),
      ).resolves.toEqual(['b', 'c']);
      await expect(
        ids([
          { field: 'stage', op: 'eq', value: 'lead' },
          { or: [[{ field: 'vip', op: 'eq', value: true }], [{ field: 'score', op: 'gt', value: 20 }]] },
        ]),
      ).resolves.toEqual(['a', 'c']);
      await expect(
        ids([
          {
            or: [
              [
                { field: 'stage', op: 'eq', value: 'lead' },
                { field: 'score', op: 'lt', value: 20 },
              ],
              [{ field: 'name', op: 'contains_text', value: 'dav' }],
            ],
          },
        ]),
      ).resolves.toEqual(['a', 'd']);
    });

    it('counts what find returns', async () => {
      const where: Condition[] = [{ field: 'stage', op: 'in', values: ['lead', 'customer'] }];
      await expect(ws.count(contacts, where)).resolves.toBe((await ws.find(contacts, { where })).length);
      await expect(ws.count(contacts)).resolves.toBe(4);
    });

    it('sorts by an undeclared field', async () => {
      const sorted = await ws.find(contacts, { sort: [{ field: 'name', direction: 'asc' }] });
      expect(sorted.map((c) => c.name)).toEqual(['Alice', 'Bob', 'Carol', 'dave']);
    });
  });

  describe('sorting and paging', () => {
    const stages = ['lead', 'customer'];
    let all: Contact[];

    beforeEach(async () => {
      all = [];
      // Five documents share each timestamp, so the order within a timestamp is the id tie-break.
      for (let i = 0; i < 25; i += 1) {
        const contact: Contact = {
          id: `p${String((i * 7) % 25).padStart(2, '0')}`,
          name: `n${i}`,
          stage: stages[i % 2],
          createdAt: `2026-02-0${1 + (i % 5)}T00:00:00.000Z`,
        };
        all.push(await ws.insert(contacts, contact));
      }
    });

    function expected(compare: (a: Contact, b: Contact) => number): string[] {
      return [...all].sort(compare).map((c) => c.id);
    }

    it('orders by id ascending when no sort is given', async () => {
      const found = await ws.find(contacts);
      expect(found.map((c) => c.id)).toEqual(expected((a, b) => a.id.localeCompare(b.id)));
    });

    it('breaks ties by id in the direction of the last key', async () => {
      const found = await ws.find(contacts, { sort: [{ field: 'createdAt', direction: 'desc' }] });
      expect(found.map((c) => c.id)).toEqual(expected((a, b) => b.createdAt!.localeCompare(a.createdAt!) || b.id.localeCompare(a.id)));
      const ascending = await ws.find(contacts, { sort: [{ field: 'createdAt', direction: 'asc' }] });
      expect(ascending.map((c) => c.id)).toEqual(expected((a, b) => a.createdAt!.localeCompare(b.createdAt!) || a.id.localeCompare(b.id)));
    });

    it('sorts by several keys', async () => {
      const found = await ws.find(contacts, {
        sort: [
          { field: 'stage', direction: 'asc' },
          { field: 'createdAt', direction: 'desc' },
        ],
      });
      expect(found.map((c) => c.id)).toEqual(
        expected((a, b) => a.stage!.localeCompare(b.stage!) || b.createdAt!.localeCompare(a.createdAt!) || b.id.localeCompare(a.id)),
      );
    });

    it.each([
      ['createdAt', 'desc'],
      ['createdAt', 'asc'],
      ['score', 'asc'],
      ['score', 'desc'],
    ] as const)('walks by cursor (afterCursor) in the sort order, on %s %s, nulls included', async (field, direction) => {
      // Some documents have no score: they sort first ascending and last descending, as the adapters sort.
      for (const [i, c] of all.entries()) if (i % 3 !== 0) await ws.update(contacts, c.id, { set: { score: i % 4 } });
      const sort = { field, direction };
      const full = (await ws.find(contacts, { sort: [sort] })).map((c) => c.id);
      const walked: string[] = [];
      let page = await ws.find(contacts, { sort: [sort], limit: 4 });
      while (page.length > 0) {
        walked.push(...page.map((c) => c.id));
        const last = page[page.length - 1]! as Contact & Record<string, unknown>;
        const position = decodeCursor(
          'scope',
          encodeCursor('scope', { value: (last[field] ?? null) as string | number | null, id: last.id }),
        );
        page = await ws.find(contacts, { where: [afterCursor(sort, position)], sort: [sort], limit: 4 });
      }
      expect(walked).toEqual(full);
      expect(() => decodeCursor('another scope', encodeCursor('scope', { value: 1, id: 'p01' }))).toThrow(CursorError);
    });

    it.each([
      ['asc', 'asc'],
      ['desc', 'asc'],
      ['asc', 'desc'],
      ['desc', 'desc'],
    ] as const)('walks by cursor (afterKeys) under two keys with unset values high, stage %s and name %s', async (first, second) => {
      // Unset stages: absent, null and '' alike; they sort after every stage ascending, before it descending.
      for (const [i, c] of all.entries()) {
        if (i % 5 === 0) await ws.update(contacts, c.id, { unset: ['stage'] });
        if (i % 5 === 1) await ws.update(contacts, c.id, { set: { stage: '' } });
      }
      const sort = [
        { field: 'stage', direction: first, unset: 'high' as const },
        { field: 'name', direction: second, unset: 'high' as const },
      ];
      const stageOf = (c: Contact) => (c.stage ? c.stage : null);
      const compareStage = (a: Contact, b: Contact) => {
        const [x, y] = [stageOf(a), stageOf(b)];
        if (x === y) return 0;
        if (x === null) return first === 'asc' ? 1 : -1;
        if (y === null) return first === 'asc' ? -1 : 1;
        return (x < y ? -1 : 1) * (first === 'asc' ? 1 : -1);
      };
      const stored = await ws.find(contacts);
      const wanted = [...stored]
        .sort(
          (a, b) =>
            compareStage(a, b) ||
            (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) * (second === 'asc' ? 1 : -1) ||
            (a.id < b.id ? -1 : 1) * (second === 'asc' ? 1 : -1),
        )
        .map((c) => c.id);
      expect((await ws.find(contacts, { sort })).map((c) => c.id)).toEqual(wanted);
      const walked: string[] = [];
      let page = await ws.find(contacts, { sort, limit: 4 });
      while (page.length > 0) {
        walked.push(...page.map((c) => c.id));
        const last = page[page.length - 1]!;
        const values = [stageOf(last), last.name];
        page = await ws.find(contacts, { where: [afterKeys(sort, { values, id: last.id })], sort, limit: 4 });
      }
      expect(walked).toEqual(wanted);
    });

    it.each([
      ['asc', 'desc'],
      ['desc', 'desc'],
      ['desc', 'asc'],
    ] as const)(
      'pages by listPage cursors in the sort order, each read one range of conditions (no or), stage %s and createdAt %s',
      async (first, second) => {
        // Ties on both keys (five documents a timestamp), and unset stages, which sort after every stage ascending.
        for (const [i, c] of all.entries()) if (i % 4 === 0) await ws.update(contacts, c.id, { unset: ['stage'] });
        const sort = [
          { field: 'stage', direction: first, unset: 'high' as const },
          { field: 'createdAt', direction: second },
        ];
        const wanted = (await ws.find(contacts, { sort })).map((c) => c.id);
        const reads: Condition[][] = [];
        const watched: ScopedStore = Object.create(ws, {
          find: {
            value: (collection: typeof contacts, query: { where?: Condition[] }) => (
              reads.push(query.where ?? []),
              ws.find(collection, query)
            ),
          },
        });
        const walked: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await listPage(watched, contacts, { sort, offset: 0, limit: 3, cursor, owner: 'w' });
          walked.push(...page.items.map((c) => c.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(walked).toEqual(wanted);
        expect(reads.length).toBeGreaterThan(wanted.length / 3);
        expect(reads.flat().filter((condition) => 'or' in condition)).toEqual([]);
      },
    );

    it('keeps documents without the field under not, and tells empty values', async () => {
      await ws.update(contacts, all[0]!.id, { unset: ['score'] });
      await ws.update(contacts, all[1]!.id, { set: { score: 9, tags: [] } });
      await ws.update(contacts, all[2]!.id, { set: { score: 1, tags: ['x'] } });
      const others = all.length - 2;
      await expect(ws.count(contacts, [{ not: [{ field: 'score', op: 'gt', value: 5 }] }])).resolves.toBe(all.length - 1);
      await expect(ws.count(contacts, [{ field: 'tags', op: 'empty', value: true }])).resolves.toBe(others + 1);
      await expect(ws.count(contacts, [{ field: 'tags', op: 'empty', value: false }])).resolves.toBe(1);
    });

    it('pages through a filtered, sorted list without gaps or repeats', async () => {
      const where: Condition[] = [{ field: 'stage', op: 'eq', value: 'lead' }];
      const sort = [{ field: 'createdAt', direction: 'desc' as const }];
      const full = (await ws.find(contacts, { where, sort })).map((c) => c.id);
      expect(full).toHaveLength(13);
      const pages: string[] = [];
      for (let offset = 0; offset < 13; offset += 5) {
        pages.push(...(await ws.find(contacts, { where, sort, limit: 5, offset })).map((c) => c.id));
      }
      expect(pages).toEqual(full);
      await expect(ws.count(contacts, where)).resolves.toBe(13);
      const last = await ws.findPage(contacts, { where, sort, limit: 5, offset: 10 });
      expect({ total: last.total, ids: last.items.map((c) => c.id) }).toEqual({ total: 13, ids: full.slice(10) });
    });

    it('applies an offset without a limit, and a limit of zero returns nothing', async () => {
      await expect(ws.find(contacts, { offset: 20 })).resolves.toHaveLength(5);
      await expect(ws.find(contacts, { limit: 0 })).resolves.toEqual([]);
    });
  });

  describe('tenancy', () => {
    let a: ScopedStore;
    let b: ScopedStore;

    beforeEach(async () => {
      a = store.forWorkspace(unique('wsA'));
      b = store.forWorkspace(unique('wsB'));
      await b.insert(contacts, { id: 'theirs', name: 'Secret', stage: 'lead' });
    });

    async function theirsIsUntouched(): Promise<void> {
      await expect(b.get(contacts, 'theirs')).resolves.toMatchObject({ id: 'theirs', name: 'Secret', stage: 'lead' });
    }

    it("does not read another workspace's documents", async () => {
      await expect(a.get(contacts, 'theirs')).resolves.toBeNull();
      await expect(a.getMany(contacts, ['theirs'])).resolves.toEqual([]);
      await expect(a.find(contacts)).resolves.toEqual([]);
      await expect(a.findOne(contacts, [{ field: 'name', op: 'eq', value: 'Secret' }])).resolves.toBeNull();
      await expect(a.count(contacts)).resolves.toBe(0);
      await expect(a.findPage(contacts, {})).resolves.toEqual({ total: 0, items: [] });
      await expect(a.findPage(contacts, { where: [{ field: 'name', op: 'contains_text', value: 'secret' }] })).resolves.toEqual({
        total: 0,
        items: [],
      });
    });

    it("does not update another workspace's documents", async () => {
      await expect(a.update(contacts, 'theirs', { set: { name: 'Hacked' } })).resolves.toBeNull();
      await expect(a.updateMany(contacts, [], { set: { name: 'Hacked' } })).resolves.toBe(0);
      const error = await storeError(
        a.commit([{ kind: 'update', collection: contacts, id: 'theirs', change: { set: { name: 'Hacked' } } }]),
      );
      expect(error.code).toBe('conflict');
      await theirsIsUntouched();
    });

    it("refuses to upsert over another workspace's id", async () => {
      const error = await storeError(a.upsert(contacts, { id: 'theirs', name: 'Mine' }, { set: { name: 'Hacked' } }));
      expect(error.code).toBe('duplicate');
      await theirsIsUntouched();
      await expect(a.count(contacts)).resolves.toBe(0);
    });

    it("does not delete another workspace's documents", async () => {
      await expect(a.delete(contacts, 'theirs')).resolves.toBe(false);
      await expect(a.deleteMany(contacts, [])).resolves.toBe(0);
      await a.commit([
        { kind: 'delete', collection: contacts, id: 'theirs' },
        { kind: 'deleteMany', collection: contacts, where: [] },
      ]);
      await theirsIsUntouched();
    });

    it('refuses a document stamped with another workspace', async () => {
      const error = await storeError(a.insert(contacts, { id: 'sneaky', name: 'S', workspaceId: 'other' }));
      expect(error.code).toBe('wrong_scope');
      await expect(b.count(contacts)).resolves.toBe(1);
    });

    it('refuses to move a document to another workspace', async () => {
      await a.insert(contacts, { id: 'mine', name: 'M' });
      await expect(storeError(a.update(contacts, 'mine', { set: { workspaceId: 'other' } }))).resolves.toMatchObject({
        code: 'wrong_scope',
      });
      await expect(storeError(a.update(contacts, 'mine', { unset: ['workspaceId'] }))).resolves.toMatchObject({ code: 'wrong_scope' });
      await expect(storeError(a.updateMany(contacts, [], { set: { workspaceId: 'other' } }))).resolves.toMatchObject({
        code: 'wrong_scope',
      });
      await expect(a.get(contacts, 'mine')).resolves.toMatchObject({ id: 'mine' });
    });

    it('refuses a workspace collection through global() and a global one through forWorkspace()', async () => {
      await expect(storeError(store.global().find(contacts))).resolves.toMatchObject({ code: 'wrong_scope' });
      await expect(storeError(store.global().insert(contacts, { id: 'g', name: 'G' }))).resolves.toMatchObject({ code: 'wrong_scope' });
      await expect(storeError(a.get(users, 'anyone'))).resolves.toMatchObject({ code: 'wrong_scope' });
      await expect(
        storeError(store.global().commit([{ kind: 'insert', collection: contacts, document: { id: 'w', name: 'W' } }])),
      ).resolves.toMatchObject({ code: 'wrong_scope' });
    });

    it("lets a workspace's unit of work write global documents with its own, all or nothing", async () => {
      await a.commit([
        { kind: 'insert', collection: contacts, document: { id: 'with-login', name: 'Has a login' } },
        { kind: 'insert', collection: users, document: { id: 'login-1', login: 'with-login' } },
      ]);
      await expect(a.get(contacts, 'with-login')).resolves.toMatchObject({ name: 'Has a login' });
      await expect(store.global().get(users, 'login-1')).resolves.toEqual({ id: 'login-1', login: 'with-login' });

      const clash = a.commit([
        { kind: 'insert', collection: contacts, document: { id: 'orphan', name: 'Never lands' } },
        { kind: 'insert', collection: users, document: { id: 'login-1', login: 'again' } },
      ]);
      await expect(storeError(clash)).resolves.toMatchObject({ code: 'duplicate' });
      await expect(a.get(contacts, 'orphan')).resolves.toBeNull();
    });
  });

  describe('operator injection', () => {
    beforeEach(async () => {
      await ws.insert(contacts, { id: 'victim', name: 'Victim', stage: 'lead' });
    });

    async function refused(promise: Promise<unknown>): Promise<void> {
      expect((await storeError(promise)).code).toBe('invalid_query');
      await expect(ws.get(contacts, 'victim')).resolves.toMatchObject({ name: 'Victim', stage: 'lead' });
      await expect(ws.count(contacts)).resolves.toBe(1);
    }

    it('refuses operator objects as values', async () => {
      await refused(ws.find(contacts, { where: [{ field: 'name', op: 'eq', value: hostile({ $gt: '' }) }] }));
      await refused(ws.find(contacts, { where: [{ field: 'name', op: 'eq', value: hostile(JSON.parse('{"$ne": null}')) }] }));
      await refused(ws.find(contacts, { where: [{ field: 'name', op: 'in', values: [hostile({ $ne: null })] }] }));
      await refused(ws.find(contacts, { where: [{ field: 'name', op: 'in', values: hostile({ $ne: null }) }] }));
      await refused(ws.count(contacts, [{ field: 'name', op: 'contains_text', value: hostile({ $regex: '.*' }) }]));
      await refused(ws.find(contacts, { where: [{ field: 'tags', op: 'has', value: hostile(['a']) }] }));
    });

    it('refuses operator values in writes and changes nothing', async () => {
      await refused(
        ws.update(contacts, 'victim', { set: { name: 'Changed' } }, { where: [{ field: 'stage', op: 'ne', value: hostile({ $gt: '' }) }] }),
      );
      await refused(ws.deleteMany(contacts, [{ field: 'name', op: 'ne', value: hostile({ $ne: null }) }]));
      await refused(ws.updateMany(contacts, [{ field: 'name', op: 'eq', value: hostile({ $gt: '' }) }], { set: { name: 'Changed' } }));
      await refused(ws.delete(contacts, hostile({ $ne: null })));
      await refused(ws.get(contacts, hostile({ $ne: null })));
    });

    it('refuses field names that are not identifiers', async () => {
      await refused(ws.find(contacts, { where: [{ field: 'a; DROP TABLE contacts', op: 'eq', value: 1 }] }));
      await refused(ws.find(contacts, { where: [{ field: '$where', op: 'eq', value: 'sleep(1000)' }] }));
      await refused(ws.find(contacts, { where: [{ field: "name') OR 1=1 --", op: 'eq', value: 'x' }] }));
      await refused(ws.find(contacts, { sort: [{ field: 'name; DROP TABLE contacts', direction: 'asc' }] }));
      await refused(ws.find(contacts, { sort: [{ field: 'name', direction: hostile('asc; DROP TABLE contacts') }] }));
      await refused(ws.deleteMany(contacts, [{ field: '$where', op: 'exists', value: true }]));
    });

    it('refuses unknown operators and malformed paging', async () => {
      await refused(ws.find(contacts, { where: [{ field: 'name', op: hostile('regex'), value: '.*' }] }));
      await refused(ws.find(contacts, { limit: hostile('1; DROP TABLE contacts') }));
      await refused(ws.find(contacts, { offset: -1 }));
    });

    it('refuses operator-looking paths and keys in writes', async () => {
      await refused(ws.update(contacts, 'victim', { set: hostile({ $set: { name: 'x' } }) }));
      await refused(ws.update(contacts, 'victim', { set: hostile({ 'name.$bad': 'x' }) }));
      await refused(ws.update(contacts, 'victim', { set: hostile({ '__proto__.polluted': 'x' }) }));
      await refused(ws.update(contacts, 'victim', { set: { address: hostile({ $where: 'x' }) } }));
      await refused(ws.update(contacts, 'victim', { inc: hostile({ score: '1' }) }));
      await refused(ws.update(contacts, 'victim', { set: { id: 'other' } }));
      await refused(ws.insert(contacts, hostile({ id: 'evil', name: 'E', nested: { $gt: '' } })));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('contains_text', () => {
    const names = ['100% sure', 'a_b', 'x.*y', 'f(x)', 'back\\slash', "O'Brien", 'plain text', 'ABC'];

    beforeEach(async () => {
      for (const [i, name] of names.entries()) await ws.insert(contacts, { id: `t${i}`, name });
    });

    async function matching(value: string): Promise<string[]> {
      return (await ws.find(contacts, { where: [{ field: 'name', op: 'contains_text', value }] })).map((c) => c.name).sort();
    }

    it.each([
      ['%', ['100% sure']],
      ['_', ['a_b']],
      ['.*', ['x.*y']],
      ['(', ['f(x)']],
      ['\\', ['back\\slash']],
      ["'", ["O'Brien"]],
      ["o'b", ["O'Brien"]],
      ['[a-z]', []],
      ['^a', []],
      ['abc', ['ABC']],
    ])('treats %j literally', async (value, expected) => {
      await expect(matching(value)).resolves.toEqual(expected);
    });
  });

  describe('contains_text on a textSearch field', () => {
    const names = ['100% sure', 'a_b', 'x.*y', "O'Brien", 'Ada Lovelace', 'Jürgen Müller', 'say "hi"', 'ABC', 'Zoë Ødegaard'];

    beforeEach(async () => {
      for (const [i, name] of names.entries()) {
        await ws.insert(people, { id: `p${i}`, name, stage: i % 2 ? 'odd' : 'even', createdAt: `2026-01-0${i + 1}` });
      }
      await store.forWorkspace(unique('ws')).insert(people, { id: unique('p'), name: 'Ada Lovelace' });
    });

    async function matching(value: string, more: Condition[] = []): Promise<string[]> {
      return (await ws.find(people, { where: [...more, { field: 'name', op: 'contains_text', value }] })).map((c) => c.name).sort();
    }

    it.each([
      ['%', ['100% sure']],
      ['0% s', ['100% sure']],
      ['_', ['a_b']],
      ['a_b', ['a_b']],
      ['a%b', []],
      ['x.*', ['x.*y']],
      ["o'b", ["O'Brien"]],
      ['[a-z]', []],
      ['"hi"', ['say "hi"']],
      ['abc', ['ABC']],
      ['LOVE', ['Ada Lovelace']],
      ['ovela', ['Ada Lovelace']],
      ['a love', ['Ada Lovelace']],
      ['üll', ['Jürgen Müller']],
      ['ë Ø', ['Zoë Ødegaard']],
      ['ül', ['Jürgen Müller']],
      ['ve', ['Ada Lovelace']],
      ['zz', []],
      ['zzzz', []],
    ])('finds %j as a literal, case-insensitive substring', async (value, expected) => {
      await expect(matching(value)).resolves.toEqual(expected);
    });

    it('ANDs the search with other filters, and counts the same', async () => {
      const stage: Condition = { field: 'stage', op: 'eq', value: 'even' };
      await expect(matching('a', [stage])).resolves.toEqual(['Ada Lovelace', 'Zoë Ødegaard', 'say "hi"']);
      await expect(matching('lov', [stage])).resolves.toEqual(['Ada Lovelace']);
      await expect(matching('brien', [stage])).resolves.toEqual([]);
      const where: Condition[] = [stage, { field: 'name', op: 'contains_text', value: 'lov' }];
      await expect(ws.findPage(people, { where, limit: 10 })).resolves.toMatchObject({ total: 1, items: [{ id: 'p4' }] });
      await expect(ws.count(people, where)).resolves.toBe(1);
    });

    it('follows updates and deletes', async () => {
      await ws.update(people, 'p4', { set: { name: 'Grace Hopper' } });
      await expect(matching('lovelace')).resolves.toEqual([]);
      await expect(matching('hopper')).resolves.toEqual(['Grace Hopper']);
      await ws.commit([{ kind: 'update', collection: people, id: 'p4', change: { unset: ['name'] } }]);
      await expect(matching('hopper')).resolves.toEqual([]);
      await ws.delete(people, 'p3');
      await expect(matching('brien')).resolves.toEqual([]);
      await expect(matching('sure')).resolves.toEqual(['100% sure']);
    });
  });

  describe.each([
    ['an undeclared field', contacts],
    ['a textSearch field', people],
  ])('text search pages on %s', (_kind, contacts) => {
    const TEXT_DOCUMENTS = 5200;
    beforeEach(async () => {
      // Enough matches for "common" that an adapter may plan it differently from the rare "needle"
      // (SQLite sorts up to 2,000 matches directly, and walks the sort index past that).
      const ops: WriteOp[] = Array.from({ length: TEXT_DOCUMENTS }, (_, i) => ({
        kind: 'insert',
        collection: contacts,
        document: {
          id: `s${String(i).padStart(4, '0')}`,
          name: i % 100 === 0 ? `Needle ${i}` : `Common ${i}`,
          createdAt: `2026-03-${String(1 + (i % 28)).padStart(2, '0')}`,
        },
      }));
      await ws.commit(ops);
    });

    async function page(value: string, offset: number): Promise<string[]> {
      const where: Condition[] = [{ field: 'name', op: 'contains_text', value }];
      return (await ws.find(contacts, { where, sort: [{ field: 'createdAt', direction: 'desc' }], limit: 5, offset })).map((c) => c.id);
    }

    function expected(prefix: string, offset: number): string[] {
      const matching = Array.from({ length: TEXT_DOCUMENTS }, (_, i) => i)
        .filter((i) => (prefix === 'needle' ? i % 100 === 0 : i % 100 !== 0))
        .map((i) => ({ id: `s${String(i).padStart(4, '0')}`, createdAt: `2026-03-${String(1 + (i % 28)).padStart(2, '0')}` }))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
      return matching.slice(offset, offset + 5).map((c) => c.id);
    }

    it.each([
      ['needle', 0],
      ['needle', 10],
      ['common', 0],
      ['common', 500],
    ])('returns the %s matches in sort order from offset %d', async (value, offset) => {
      await expect(page(value, offset)).resolves.toEqual(expected(value, offset));
    });

    it.each([
      ['needle', 0, 52],
      ['needle', 10, 52],
      ['common', 500, 5148],
      ['common', 5140, 5148],
    ])('findPage gives the %s page from offset %d with the total of every match', async (value, offset, total) => {
      const where: Condition[] = [{ field: 'name', op: 'contains_text', value }];
      const found = await ws.findPage(contacts, { where, sort: [{ field: 'createdAt', direction: 'desc' }], limit: 5, offset });
      expect({ total: found.total, ids: found.items.map((c) => c.id) }).toEqual({ total, ids: expected(value, offset) });
    });

    it('findPage with a limit of zero counts without reading a page', async () => {
      const where: Condition[] = [{ field: 'name', op: 'contains_text', value: 'needle' }];
      await expect(ws.findPage(contacts, { where, limit: 0 })).resolves.toEqual({ total: 52, items: [] });
      await expect(ws.findPage(contacts, { where: [{ field: 'name', op: 'contains_text', value: 'nowhere' }] })).resolves.toEqual({
        total: 0,
        items: [],
      });
    });
  });

  describe.each([
    ['an undeclared field', contacts],
    ['a textSearch field', people],
  ])('text search pages on %s when the matches all sort last', (_kind, contacts) => {
    // 4,500 newer documents without the needle, then 2,100 older ones with it: more matches than
    // SQLite sorts directly, bunched where a walk along the sort index that expects them spread
    // evenly (and reads at most 4,000 entries for a first page) does not reach them.
    const NEWER = 4500;
    const OLDER = 2100;
    beforeEach(async () => {
      const ops: WriteOp[] = Array.from({ length: NEWER + OLDER }, (_, i) => ({
        kind: 'insert',
        collection: contacts,
        document: {
          id: `b${String(i).padStart(4, '0')}`,
          name: i < NEWER ? `Plain ${i}` : `Buried ${i}`,
          stage: i % 2 ? 'odd' : 'even',
          createdAt: i < NEWER ? `2026-05-${String(1 + (i % 28)).padStart(2, '0')}` : `2025-01-${String(1 + (i % 28)).padStart(2, '0')}`,
        },
      }));
      await ws.commit(ops);
    });

    function expected(offset: number, limit: number, odd?: boolean): string[] {
      return Array.from({ length: OLDER }, (_, k) => NEWER + k)
        .filter((i) => odd === undefined || i % 2 === (odd ? 1 : 0))
        .map((i) => ({ id: `b${String(i).padStart(4, '0')}`, createdAt: `2025-01-${String(1 + (i % 28)).padStart(2, '0')}` }))
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
        .slice(offset, offset + limit)
        .map((c) => c.id);
    }

    const sort: SortKey[] = [{ field: 'createdAt', direction: 'desc' }];
    const buried: Condition = { field: 'name', op: 'contains_text', value: 'BURIED' };

    it('findPage still gives the first page and the total', async () => {
      const found = await ws.findPage(contacts, { where: [buried], sort, limit: 20, offset: 0 });
      expect({ total: found.total, ids: found.items.map((c) => c.id) }).toEqual({ total: OLDER, ids: expected(0, 20) });
    });

    it('find gives a later page, and with another condition', async () => {
      const page = await ws.find(contacts, { where: [buried], sort, limit: 7, offset: 100 });
      expect(page.map((c) => c.id)).toEqual(expected(100, 7));
      const odd: Condition = { field: 'stage', op: 'eq', value: 'odd' };
      const oddPage = await ws.find(contacts, { where: [odd, buried], sort, limit: 7, offset: 3 });
      expect(oddPage.map((c) => c.id)).toEqual(expected(3, 7, true));
      await expect(ws.findPage(contacts, { where: [odd, buried], sort, limit: 0 })).resolves.toEqual({ total: OLDER / 2, items: [] });
    });

    it('counts the matches', async () => {
      await expect(ws.count(contacts, [buried])).resolves.toBe(OLDER);
      await expect(ws.count(contacts, [{ field: 'name', op: 'contains_text', value: 'ain' }])).resolves.toBe(NEWER);
    });
  });

  describe('unique indexes', () => {
    it('refuses a duplicate within a workspace and names the fields', async () => {
      await ws.insert(accounts, { id: 'acc1', slug: 'acme' });
      const error = await storeError(ws.insert(accounts, { id: 'acc2', slug: 'acme' }));
      expect(error.code).toBe('duplicate');
      expect(error.fields).toEqual(['slug']);
      await expect(ws.count(accounts)).resolves.toBe(1);
    });

    it('allows the same value in another workspace', async () => {
      await ws.insert(accounts, { id: unique('acc'), slug: 'acme' });
      const other = store.forWorkspace(unique('ws'));
      await expect(other.insert(accounts, { id: unique('acc'), slug: 'acme' })).resolves.toMatchObject({ slug: 'acme' });
    });

    it('refuses an update that would take a unique value', async () => {
      await ws.insert(accounts, { id: 'x1', slug: 'one' });
      await ws.insert(accounts, { id: 'x2', slug: 'two' });
      await expect(storeError(ws.update(accounts, 'x2', { set: { slug: 'one' } }))).resolves.toMatchObject({
        code: 'duplicate',
        fields: ['slug'],
      });
      await expect(ws.get(accounts, 'x2')).resolves.toMatchObject({ slug: 'two' });
    });

    it('makes a global unique index unique across the whole collection', async () => {
      const login = unique('login');
      await store.global().insert(users, { id: unique('u'), login });
      await expect(storeError(store.global().insert(users, { id: unique('u'), login }))).resolves.toMatchObject({
        code: 'duplicate',
        fields: ['login'],
      });
    });

    it('ignores absent and null values in a sparse unique index', async () => {
      await ws.insert(contacts, { id: 's1', name: 'No email' });
      await ws.insert(contacts, { id: 's2', name: 'No email either' });
      await ws.insert(contacts, { id: 's3', name: 'Null email', email: null });
      await ws.insert(contacts, { id: 's4', name: 'Null email too', email: null });
      await ws.insert(contacts, { id: 's5', name: 'Email', email: 'x@example.com' });
      await expect(storeError(ws.insert(contacts, { id: 's6', name: 'Same email', email: 'x@example.com' }))).resolves.toMatchObject({
        code: 'duplicate',
        fields: ['email'],
      });
      await expect(ws.count(contacts)).resolves.toBe(5);
    });
  });

  describe('changes', () => {
    beforeEach(async () => {
      await ws.insert(contacts, { id: 'k', name: 'K', score: 1, address: { city: 'Oslo', zip: '0150' }, usage: { '2026-01-01': 3 } });
    });

    it('sets a dot path without touching its siblings', async () => {
      const updated = await ws.update(contacts, 'k', { set: { 'address.city': 'Bergen' } });
      expect(updated?.address).toEqual({ city: 'Bergen', zip: '0150' });
    });

    it('sets a path whose keys contain dashes, creating missing parents', async () => {
      await ws.update(contacts, 'k', { set: { 'usage.2026-01-02': 7, 'meta.source.kind': 'import' } });
      const read = (await ws.get(contacts, 'k')) as Contact & { meta?: unknown };
      expect(read.usage).toEqual({ '2026-01-01': 3, '2026-01-02': 7 });
      expect(read.meta).toEqual({ source: { kind: 'import' } });
    });

    it('increments numbers, counting a missing field as zero', async () => {
      const updated = await ws.update(contacts, 'k', { inc: { score: 2, visits: 1, 'usage.2026-01-01': 2, 'usage.2026-01-03': -1 } });
      expect(updated).toMatchObject({ score: 3, visits: 1, usage: { '2026-01-01': 5, '2026-01-03': -1 } });
    });

    it('unsets top-level and nested fields', async () => {
      const updated = await ws.update(contacts, 'k', { unset: ['score', 'address.zip', 'not.there'] });
      expect(updated).not.toHaveProperty('score');
      expect(updated?.address).toEqual({ city: 'Oslo' });
    });

    it('applies set, unset and inc together', async () => {
      const updated = await ws.update(contacts, 'k', { set: { name: 'K2', tags: ['t'] }, unset: ['address'], inc: { score: 10 } });
      expect(updated).toMatchObject({ name: 'K2', tags: ['t'], score: 11 });
      expect(updated).not.toHaveProperty('address');
    });

    it('refuses to increment a field that is not a number', async () => {
      await expect(storeError(ws.update(contacts, 'k', { inc: { name: 1 } }))).resolves.toMatchObject({ code: 'invalid_query' });
      await expect(ws.get(contacts, 'k')).resolves.toMatchObject({ name: 'K' });
    });

    it('refuses a change that touches one path twice', async () => {
      await expect(storeError(ws.update(contacts, 'k', { set: { address: {} }, unset: ['address.city'] }))).resolves.toMatchObject({
        code: 'invalid_query',
      });
    });

    it('keeps a changed declared field queryable', async () => {
      await ws.update(contacts, 'k', { set: { stage: 'won' } });
      await expect(ids([{ field: 'stage', op: 'eq', value: 'won' }])).resolves.toEqual(['k']);
    });
  });

  describe('conditional updates', () => {
    beforeEach(async () => {
      await ws.insert(contacts, { id: 'cond', name: 'C', stage: 'customer', score: 1 });
    });

    it('changes nothing and returns null when the condition fails', async () => {
      const result = await ws.update(contacts, 'cond', { inc: { score: 1 } }, { where: [{ field: 'stage', op: 'eq', value: 'lead' }] });
      expect(result).toBeNull();
      await expect(ws.get(contacts, 'cond')).resolves.toMatchObject({ score: 1 });
    });

    it('applies the change when the condition holds', async () => {
      const result = await ws.update(contacts, 'cond', { inc: { score: 1 } }, { where: [{ field: 'stage', op: 'eq', value: 'customer' }] });
      expect(result).toMatchObject({ score: 2 });
    });

    it('serves as a lease: of concurrent claims one wins, and a lapsed lease can be claimed again', async () => {
      // stage = holder, score = expiry, as the records outbox relay's lease uses them.
      const claim = (holder: string, now: number) =>
        ws.update(
          contacts,
          'cond',
          { set: { stage: holder, score: now + 100 } },
          {
            where: [
              {
                or: [
                  [{ field: 'stage', op: 'eq', value: holder }],
                  [{ field: 'score', op: 'lt', value: now }],
                  [{ field: 'score', op: 'exists', value: false }],
                ],
              },
            ],
          },
        );
      await ws.update(contacts, 'cond', { unset: ['score'] });
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => claim(`holder-${i}`, 1_000)));
      const winners = claims.filter((claimed) => claimed !== null);
      expect(winners).toHaveLength(1);
      await expect(claim('late', 1_050)).resolves.toBeNull();
      await expect(claim(winners[0]!.stage!, 1_050)).resolves.toMatchObject({ score: 1_150 });
      await expect(claim('late', 1_200)).resolves.toMatchObject({ stage: 'late', score: 1_300 });
    });
  });

  describe('upsert', () => {
    it('inserts the document when the id is free, then applies the change', async () => {
      const first = await ws.upsert(contacts, { id: 'up', name: 'Up', visits: 1 }, { inc: { visits: 1 } });
      expect(first).toMatchObject({ id: 'up', name: 'Up', visits: 1 });
      const second = await ws.upsert(contacts, { id: 'up', name: 'Ignored', visits: 1 }, { inc: { visits: 1 } });
      expect(second).toMatchObject({ id: 'up', name: 'Up', visits: 2 });
    });

    it('never inserts twice under concurrency', async () => {
      await Promise.all(
        Array.from({ length: 20 }, () => ws.upsert(contacts, { id: 'hot', name: 'Hot', visits: 1 }, { inc: { visits: 1 } })),
      );
      await expect(ws.count(contacts, [{ field: 'id', op: 'eq', value: 'hot' }])).resolves.toBe(1);
      await expect(ws.get(contacts, 'hot')).resolves.toMatchObject({ visits: 20 });
    });
  });

  describe('units of work', () => {
    it('applies every kind of write together', async () => {
      await ws.insert(contacts, { id: 'keep', name: 'Keep', stage: 'lead' });
      await ws.insert(contacts, { id: 'drop', name: 'Drop', stage: 'lead' });
      await ws.insert(contacts, { id: 'old1', name: 'Old', stage: 'lost' });
      await ws.commit([
        { kind: 'insert', collection: contacts, document: { id: 'new', name: 'New', stage: 'lead' } },
        {
          kind: 'update',
          collection: contacts,
          id: 'keep',
          change: { set: { vip: true } },
          where: [{ field: 'stage', op: 'eq', value: 'lead' }],
        },
        { kind: 'delete', collection: contacts, id: 'drop' },
        { kind: 'updateMany', collection: contacts, where: [{ field: 'stage', op: 'eq', value: 'lead' }], change: { inc: { score: 1 } } },
        { kind: 'deleteMany', collection: contacts, where: [{ field: 'stage', op: 'eq', value: 'lost' }] },
        { kind: 'insert', collection: accounts, document: { id: 'acc', slug: 'unit' } },
      ]);
      const all = await ws.find(contacts);
      expect(all.map((c) => c.id)).toEqual(['keep', 'new']);
      expect(all[0]).toMatchObject({ vip: true, score: 1 });
      expect(all[1]).toMatchObject({ score: 1 });
      await expect(ws.get(accounts, 'acc')).resolves.toMatchObject({ slug: 'unit' });
    });

    it('writes nothing when the last insert is a duplicate', async () => {
      await ws.insert(accounts, { id: 'taken', slug: 'taken' });
      const error = await storeError(
        ws.commit([
          { kind: 'insert', collection: contacts, document: { id: 'w1', name: 'W1' } },
          { kind: 'update', collection: accounts, id: 'taken', change: { set: { note: 'x' } } },
          { kind: 'insert', collection: accounts, document: { id: 'other', slug: 'taken' } },
        ]),
      );
      expect(error).toMatchObject({ code: 'duplicate', fields: ['slug'] });
      await expect(ws.get(contacts, 'w1')).resolves.toBeNull();
      await expect(ws.get(accounts, 'taken')).resolves.not.toHaveProperty('note');
    });

    it('writes a long run of inserts (multi-row statements in SQLite) and nothing when one of the run is a duplicate', async () => {
      // 150 rows: cut into statements of every size the SQLite adapter uses (64, 8, 1).
      const idsStartingWith = (prefix: string): Condition[] => [
        { field: 'id', op: 'gte', value: prefix },
        { field: 'id', op: 'lt', value: `${prefix}\uffff` },
      ];
      const run = (prefix: string, count: number) =>
        Array.from({ length: count }, (_, i) => ({
          kind: 'insert' as const,
          collection: accounts,
          document: { id: `${prefix}-${String(i).padStart(3, '0')}`, slug: `${prefix}-${i}` },
        }));
      await ws.commit([...run('bulk', 150), { kind: 'insert', collection: contacts, document: { id: 'after-run', name: 'A' } }]);
      expect(await ws.count(accounts, idsStartingWith('bulk-'))).toBe(150);
      await expect(ws.get(accounts, 'bulk-149')).resolves.toMatchObject({ slug: 'bulk-149' });
      await expect(ws.get(contacts, 'after-run')).resolves.toMatchObject({ name: 'A' });

      const clashing = run('again', 100);
      clashing[70] = { kind: 'insert', collection: accounts, document: { id: 'again-070', slug: 'bulk-3' } };
      const error = await storeError(ws.commit(clashing));
      expect(error).toMatchObject({ code: 'duplicate', fields: ['slug'] });
      const sameId = run('twice', 10);
      sameId[9] = { kind: 'insert', collection: accounts, document: { id: 'twice-000', slug: 'twice-x' } };
      await expect(storeError(ws.commit(sameId))).resolves.toMatchObject({ code: 'duplicate' });
      expect(await ws.count(accounts, idsStartingWith('again-'))).toBe(0);
      expect(await ws.count(accounts, idsStartingWith('twice-'))).toBe(0);
    });

    it('writes nothing when a required update finds no document', async () => {
      const error = await storeError(
        ws.commit([
          { kind: 'insert', collection: contacts, document: { id: 'w2', name: 'W2' } },
          { kind: 'update', collection: contacts, id: 'ghost', change: { set: { name: 'X' } } },
        ]),
      );
      expect(error.code).toBe('conflict');
      await expect(ws.get(contacts, 'w2')).resolves.toBeNull();
    });

    it('writes nothing when a required update fails its condition', async () => {
      await ws.insert(contacts, { id: 'guarded', name: 'G', stage: 'lead' });
      const ops: WriteOp[] = [
        { kind: 'update', collection: contacts, id: 'guarded', change: { set: { stage: 'customer' } } },
        { kind: 'insert', collection: contacts, document: { id: 'w3', name: 'W3' } },
        {
          kind: 'update',
          collection: contacts,
          id: 'guarded',
          change: { set: { name: 'X' } },
          where: [{ field: 'stage', op: 'eq', value: 'lead' }],
        },
      ];
      await expect(storeError(ws.commit(ops))).resolves.toMatchObject({ code: 'conflict' });
      await expect(ws.get(contacts, 'guarded')).resolves.toMatchObject({ name: 'G', stage: 'lead' });
      await expect(ws.get(contacts, 'w3')).resolves.toBeNull();
    });

    it('skips an optional update that finds no document', async () => {
      await ws.commit([
        { kind: 'update', collection: contacts, id: 'ghost', change: { set: { name: 'X' } }, required: false },
        { kind: 'insert', collection: contacts, document: { id: 'w4', name: 'W4' } },
      ]);
      await expect(ws.get(contacts, 'w4')).resolves.toMatchObject({ name: 'W4' });
    });

    it('writes nothing when one write is invalid', async () => {
      await expect(
        storeError(
          ws.commit([
            { kind: 'insert', collection: contacts, document: { id: 'w5', name: 'W5' } },
            { kind: 'deleteMany', collection: contacts, where: [{ field: 'name', op: 'ne', value: hostile({ $ne: null }) }] },
          ]),
        ),
      ).resolves.toMatchObject({ code: 'invalid_query' });
      await expect(ws.get(contacts, 'w5')).resolves.toBeNull();
    });
  });
});

describe('SQLite file lifetime', () => {
  function fileLocation(name: string): StoreLocation {
    return { kind: 'sqlite', file: join(tempDir, name) };
  }

  it('keeps data after closing and reopening the file', async () => {
    const location = fileLocation('reopen.db');
    const first = await openStore({ location, collections });
    await first.forWorkspace('w').insert(contacts, { id: 'kept', name: 'Kept', stage: 'lead' });
    await first.close();
    const second = await openStore({ location, collections });
    await expect(second.forWorkspace('w').get(contacts, 'kept')).resolves.toMatchObject({ name: 'Kept' });
    await expect(second.forWorkspace('w').count(contacts, [{ field: 'stage', op: 'eq', value: 'lead' }])).resolves.toBe(1);
    await second.close();
  });

  it("lets two stores on one file see each other's writes", async () => {
    const location = fileLocation('shared.db');
    const one = await openStore({ location, collections });
    const two = await openStore({ location, collections });
    await one.forWorkspace('w').insert(contacts, { id: 'from-one', name: 'One' });
    await expect(two.forWorkspace('w').get(contacts, 'from-one')).resolves.toMatchObject({ name: 'One' });
    await two.forWorkspace('w').update(contacts, 'from-one', { inc: { visits: 1 } });
    await expect(one.forWorkspace('w').get(contacts, 'from-one')).resolves.toMatchObject({ visits: 1 });
    await expect(storeError(two.forWorkspace('w').insert(contacts, { id: 'from-one', name: 'Again' }))).resolves.toMatchObject({
      code: 'duplicate',
    });
    await one.close();
    await two.close();
  });

  it('adds fields and indexes declared later, and reopening changes nothing', async () => {
    const location = fileLocation('evolve.db');
    const v1 = defineCollection<Contact>({ name: 'leads', scope: 'workspace', fields: { stage: 'string' } });
    const v2 = defineCollection<Contact>({
      name: 'leads',
      scope: 'workspace',
      fields: { stage: 'string', score: 'number' },
      indexes: [{ fields: ['score'] }, { fields: ['email'], unique: true, sparse: true }],
    });
    const first = await openStore({ location, collections: [v1] });
    await first.forWorkspace('w').insert(v1, { id: 'l1', name: 'L1', stage: 'lead', score: 3, email: 'l@example.com' });
    await first.close();
    for (let run = 0; run < 2; run += 1) {
      const later = await openStore({ location, collections: [v2] });
      const scoped = later.forWorkspace('w');
      await expect(scoped.find(v2, { where: [{ field: 'score', op: 'gte', value: 3 }] })).resolves.toHaveLength(1);
      await expect(storeError(scoped.insert(v2, { id: `l2-${run}`, name: 'L2', email: 'l@example.com' }))).resolves.toMatchObject({
        code: 'duplicate',
        fields: ['email'],
      });
      await later.close();
    }
  });

  it('refuses every call after close with unavailable', async () => {
    const closed = await openStore({ location: fileLocation('closed.db'), collections });
    await closed.close();
    await expect(closed.ping()).resolves.toBe(false);
    await expect(storeError(closed.forWorkspace('w').get(contacts, 'x'))).resolves.toMatchObject({ code: 'unavailable' });
  });
});
