import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Condition, defineCollection, openStore, Store, StoredDocument, WriteOp } from '../index';
import { keepAlive } from './keep-alive';
import { FileVersionCache } from './file-version-cache';

interface Person extends StoredDocument {
  name: string;
}

const people = defineCollection<Person>({ name: 'people', scope: 'workspace', fields: { name: 'string' }, textSearch: ['name'] });
/** More than the 2,000 matches the store sorts directly, so the count is a search of its own. */
const COMMON = 2500;
const common: Condition[] = [{ field: 'name', op: 'contains_text', value: 'common' }];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crm-search-cache-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function person(id: string, name: string): WriteOp {
  return { kind: 'insert', collection: people, document: { id, name } };
}

describe('FileVersionCache', () => {
  function fixture(): { cache: FileVersionCache<number>; db: Database.Database; other: Database.Database } {
    const file = join(dir, 'cache.db');
    const db = keepAlive(new Database(file));
    db.exec('PRAGMA journal_mode = WAL; CREATE TABLE t (x)');
    const other = keepAlive(new Database(file));
    return { cache: new FileVersionCache<number>((sql) => keepAlive(db.prepare(sql)), 512), db, other };
  }

  it('answers a key once while the file is unchanged', () => {
    const { cache } = fixture();
    const count = jest.fn(() => 7);
    cache.refresh();
    expect(cache.get('a', count)).toBe(7);
    cache.refresh();
    expect(cache.get('a', count)).toBe(7);
    expect(count).toHaveBeenCalledTimes(1);
    expect(cache.get('b', () => 8)).toBe(8);
  });

  it.each([
    ['its own connection', (db: Database.Database) => db],
    ['another connection', (_db: Database.Database, other: Database.Database) => other],
  ])('answers again after a write from %s', (_who, writer) => {
    const { cache, db, other } = fixture();
    cache.refresh();
    cache.get('a', () => 1);
    keepAlive(writer(db, other).prepare('INSERT INTO t VALUES (1)')).run();
    cache.refresh();
    expect(cache.get('a', () => 2)).toBe(2);
  });

  it('keeps at most its capacity of keys, dropping the oldest', () => {
    const { cache } = fixture();
    cache.refresh();
    for (let i = 0; i <= 512; i++) cache.get(`k${i}`, () => i);
    expect(cache.get('k512', () => -1)).toBe(512);
    expect(cache.get('k1', () => -1)).toBe(1);
    expect(cache.get('k0', () => -1)).toBe(-1);
  });
});

describe('SQLite searches kept while the file is unchanged', () => {
  let store: Store;
  let file: string;
  beforeEach(async () => {
    file = join(dir, 'people.db');
    store = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
    const ops = Array.from({ length: COMMON }, (_, i) => person(`p${i}`, `common ${i}`));
    await store.forWorkspace('ws_a').commit(ops);
  });
  afterEach(() => store.close());

  const total = async (s: Store, workspace = 'ws_a') =>
    (await s.forWorkspace(workspace).findPage(people, { where: common, limit: 5 })).total;

  it('count right after writes of this process: insert, update and delete', async () => {
    const ws = store.forWorkspace('ws_a');
    await expect(total(store)).resolves.toBe(COMMON);
    await expect(ws.count(people, common)).resolves.toBe(COMMON);
    await ws.commit([person('new', 'common new')]);
    await expect(total(store)).resolves.toBe(COMMON + 1);
    await ws.commit([{ kind: 'update', collection: people, id: 'p0', change: { set: { name: 'rare' } } }]);
    await expect(ws.count(people, common)).resolves.toBe(COMMON);
    await ws.deleteMany(people, [{ field: 'id', op: 'in', values: ['p1', 'p2'] }]);
    await expect(total(store)).resolves.toBe(COMMON - 2);
  });

  it('count right after another process writes the file', async () => {
    await expect(total(store)).resolves.toBe(COMMON);
    const other = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
    try {
      await other.forWorkspace('ws_a').commit([person('theirs', 'common theirs')]);
      await expect(total(store)).resolves.toBe(COMMON + 1);
    } finally {
      await other.close();
    }
  });

  it('find the new match of a rare needle (whose matches are kept, not only counted)', async () => {
    const rare = async () =>
      (await store.forWorkspace('ws_a').find(people, { where: [{ field: 'name', op: 'contains_text', value: 'rare' }], limit: 5 })).map(
        (p) => p.id,
      );
    await store.forWorkspace('ws_a').commit([person('r1', 'rare one')]);
    await expect(rare()).resolves.toEqual(['r1']);
    await store.forWorkspace('ws_a').commit([person('r2', 'rare two')]);
    await expect(rare()).resolves.toEqual(['r1', 'r2']);
  });

  it('are kept per workspace', async () => {
    await expect(total(store)).resolves.toBe(COMMON);
    await store.forWorkspace('ws_b').commit(Array.from({ length: 2100 }, (_, i) => person(`q${i}`, `common ${i}`)));
    await expect(total(store, 'ws_b')).resolves.toBe(2100);
    await expect(total(store)).resolves.toBe(COMMON);
  });
});
