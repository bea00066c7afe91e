import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Condition, defineCollection, DocumentStore, openStore, StoredDocument, WriteOp } from '../index';
import { keepAlive } from './keep-alive';
import { WORKSPACE_TEXT_VERSION } from './sqlite-text-index';

interface Person extends StoredDocument {
  name: string;
  stage?: string;
}

const people = defineCollection<Person>({
  name: 'people',
  scope: 'workspace',
  fields: { name: 'string', stage: 'string' },
  textSearch: ['name'],
});
/** More than the 2,000 matches the store sorts directly, so the count is a search of its own. */
const COMMON = 2500;
const common: Condition[] = [{ field: 'name', op: 'contains_text', value: 'common' }];

let dir: string;
let file: string;
let store: DocumentStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crm-kept-searches-'));
  file = join(dir, 'people.db');
  store = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
  await store.forWorkspace('ws_a').commit(Array.from({ length: COMMON }, (_, i) => person(`p${i}`, `common ${i}`)));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function person(id: string, name: string): WriteOp {
  return { kind: 'insert', collection: people, document: { id, name } };
}

const total = async (s: DocumentStore, workspace = 'ws_a') =>
  (await s.forWorkspace(workspace).findPage(people, { where: common, limit: 5 })).total;

/** Reads a file the way another process would. */
function rawFile(): Database.Database {
  return keepAlive(new Database(file));
}

describe('SQLite searches kept while their workspace text version stands', () => {
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
    const ws = store.forWorkspace('ws_a');
    const rare = async () =>
      (await ws.find(people, { where: [{ field: 'name', op: 'contains_text', value: 'rare' }], limit: 5 })).map((p: Person) => p.id);
    await ws.commit([person('r1', 'rare one')]);
    await expect(rare()).resolves.toEqual(['r1']);
    await ws.commit([person('r2', 'rare two')]);
    await expect(rare()).resolves.toEqual(['r1', 'r2']);
  });

  it('are kept per workspace', async () => {
    await expect(total(store)).resolves.toBe(COMMON);
    await store.forWorkspace('ws_b').commit(Array.from({ length: 2100 }, (_, i) => person(`q${i}`, `common ${i}`)));
    await expect(total(store, 'ws_b')).resolves.toBe(2100);
    await expect(total(store)).resolves.toBe(COMMON);
  });

  it("move a workspace's text version with its indexed values only", async () => {
    const db = rawFile();
    const version = (workspace: string) => keepAlive(db.prepare(WORKSPACE_TEXT_VERSION)).pluck().get(workspace) as number;
    const ws = store.forWorkspace('ws_a');
    const start = version('ws_a');
    expect(start).toBeGreaterThan(0);
    expect(version('ws_none')).toBe(0);

    await store.forWorkspace('ws_b').commit([person('b1', 'common b')]);
    await ws.commit([{ kind: 'update', collection: people, id: 'p0', change: { set: { stage: 'lead' } } }]);
    expect(version('ws_a')).toBe(start);

    await ws.commit([{ kind: 'update', collection: people, id: 'p0', change: { set: { name: 'renamed' } } }]);
    const renamed = version('ws_a');
    expect(renamed).toBeGreaterThan(start);
    await ws.deleteMany(people, [{ field: 'id', op: 'eq', value: 'p1' }]);
    expect(version('ws_a')).toBeGreaterThan(renamed);
    db.close();
  });

  it('rebuild an index whose triggers do not move the text version (a file of the older shape)', async () => {
    await store.close();
    const db = rawFile();
    db.exec('DROP TRIGGER "people__text__name__update"');
    db.exec('CREATE TRIGGER "people__text__name__update" AFTER UPDATE ON "people" BEGIN SELECT 1; END');
    db.close();

    store = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
    await expect(total(store)).resolves.toBe(COMMON);
    await store.forWorkspace('ws_a').commit([person('new', 'common new')]);
    await expect(total(store)).resolves.toBe(COMMON + 1);
  });
});
