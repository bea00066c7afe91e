import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { defineCollection, openStore, StoredDocument } from '../index';
import { keepAlive } from './keep-alive';
import { selectToSql, textCountToSql, workspaceTextSearch } from './sqlite-query';
import { createCollectionSchema } from './sqlite-schema';

interface Person extends StoredDocument {
  name: string;
}

const definition = { name: 'people', scope: 'workspace', fields: { name: 'string' } } as const;
const withoutIndex = defineCollection<Person>({ ...definition });
const withIndex = defineCollection<Person>({ ...definition, textSearch: ['name'] });
/** Another collection searched by a scan, to hold the index's answers against. */
const scanned = defineCollection<Person>({ ...definition, name: 'people_scanned' });

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crm-text-index-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function tables(file: string): string[] {
  const db = keepAlive(new Database(file, { readonly: true }));
  try {
    return keepAlive(db.prepare(`SELECT name FROM sqlite_master WHERE name LIKE 'people__text__%' ORDER BY name`))
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
}

describe('SQLite text index', () => {
  it('is built from the existing rows when a file without it is opened', async () => {
    const file = join(dir, 'old.db');
    const before = await openStore({ location: { kind: 'sqlite', file }, collections: [withoutIndex] });
    const ws = before.forWorkspace('ws_a');
    await ws.insert(withoutIndex, { id: 'p1', name: 'ada lovelace' });
    await ws.insert(withoutIndex, { id: 'p2', name: 'grace hopper' });
    await before.close();
    expect(tables(file)).toEqual([]);

    const after = await openStore({ location: { kind: 'sqlite', file }, collections: [withIndex] });
    expect(tables(file)).toContain('people__text__name');
    const search = async (value: string) =>
      (await after.forWorkspace('ws_a').find(withIndex, { where: [{ field: 'name', op: 'contains_text', value }] })).map((p) => p.id);
    await expect(search('velac')).resolves.toEqual(['p1']);
    await expect(search('hop')).resolves.toEqual(['p2']);
    await expect(search('ce')).resolves.toEqual(['p1', 'p2']);
    await after.close();

    // Dropped again (with its triggers) once no longer declared: writes still work.
    const dropped = await openStore({ location: { kind: 'sqlite', file }, collections: [withoutIndex] });
    expect(tables(file)).toEqual([]);
    await dropped.forWorkspace('ws_a').insert(withoutIndex, { id: 'p3', name: 'katherine johnson' });
    await dropped.close();
  });

  it('answers what the scan answers, counts included, whatever the case or the workspace', async () => {
    const store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: [scanned, withIndex] });
    try {
      const names = [
        'École Normale',
        'ÉCOLE',
        'école',
        'Ada LOVELACE',
        'ada lovelace',
        'Straße',
        'STRASSE',
        'say "hi"',
        'x\u{1F600}yz',
        'Ødegaard',
        'Nul\u0000ZZ [a*?]',
        'Wild [a*?] card',
        'wild a card',
        'wild x] card',
      ];
      for (const workspace of ['ws_a', 'ws_b']) {
        const ws = store.forWorkspace(workspace);
        for (const [i, name] of names.entries()) {
          if (workspace === 'ws_b' && i % 3 === 0) continue;
          await ws.insert(scanned, { id: `${workspace}-${i}`, name });
          await ws.insert(withIndex, { id: `${workspace}-${i}`, name });
        }
      }
      const needles = [
        'éco',
        'ÉCO',
        'Éco',
        'cole',
        'LOVE',
        'lovelace',
        'straße',
        'STRASSE',
        'ASS',
        '"hi"',
        '\u{1F600}yz',
        'ødeg',
        'ØDEG',
        'zzz',
        // Under three characters: no trigram, the values table answers.
        'é',
        'É',
        'ß',
        'SS',
        'o',
        '"',
        '\u{1F600}',
        'zz',
        // In most names: counted by a scan of the values table rather than the index.
        'a',
        'e',
        'ace',
        // Literal whatever they hold: GLOB's wildcards, a NUL.
        '[a',
        '*',
        '?]',
        '[a*?]',
        '\u0000',
        'l\u0000z',
        'zz [',
      ];
      for (const workspace of ['ws_a', 'ws_b', 'ws_none']) {
        const ws = store.forWorkspace(workspace);
        for (const value of needles) {
          const where = [{ field: 'name', op: 'contains_text' as const, value }];
          const sort = [{ field: 'name', direction: 'asc' as const }];
          const scan = await ws.findPage(scanned, { where, sort, limit: 20 });
          const indexed = await ws.findPage(withIndex, { where, sort, limit: 20 });
          expect({ workspace, value, ...indexed }).toEqual({ workspace, value, ...scan });
          await expect(ws.count(withIndex, where)).resolves.toBe(scan.total);
        }
      }
    } finally {
      await store.close();
    }
  });

  it('is made again from the rows when the file holds one of an older shape', async () => {
    const file = join(dir, 'older.db');
    const first = await openStore({ location: { kind: 'sqlite', file }, collections: [withIndex] });
    await first.forWorkspace('ws_a').insert(withIndex, { id: 'p1', name: 'Ada Lovelace' });
    await first.close();
    const db = keepAlive(new Database(file));
    try {
      for (const trigger of ['update', 'delete']) db.exec(`DROP TRIGGER "people__text__name__${trigger}"`);
      db.exec('DROP TABLE "people__text__name"');
      // The shape before the index held its values lowered and its workspaces as tokens; left empty.
      db.exec(`CREATE VIRTUAL TABLE "people__text__name" USING fts5(value, workspace_id UNINDEXED, tokenize = 'trigram')`);
    } finally {
      db.close();
    }
    const again = await openStore({ location: { kind: 'sqlite', file }, collections: [withIndex] });
    try {
      const ws = again.forWorkspace('ws_a');
      await expect(ws.findPage(withIndex, { where: [{ field: 'name', op: 'contains_text', value: 'LOVE' }] })).resolves.toMatchObject({
        total: 1,
        items: [{ id: 'p1' }],
      });
      await expect(ws.findPage(withIndex, { where: [{ field: 'name', op: 'contains_text', value: 'Lo' }] })).resolves.toMatchObject({
        total: 1,
        items: [{ id: 'p1' }],
      });
    } finally {
      await again.close();
    }
  });

  it('answers a needle of three characters or more from the index, a shorter one by a scan', () => {
    const db = keepAlive(new Database(':memory:'));
    try {
      const { columns } = createCollectionSchema(db, withIndex, (sql) => keepAlive(db.prepare(sql)));
      const plan = (value: string) => {
        const { sql, params } = selectToSql({ where: [{ field: 'name', op: 'contains_text', value }] }, columns);
        return keepAlive(db.prepare(`EXPLAIN QUERY PLAN ${sql}`))
          .all(...params)
          .map((row) => (row as { detail: string }).detail)
          .join('; ');
      };
      expect(plan('abc')).toContain('VIRTUAL TABLE INDEX');
      expect(plan('ab')).not.toContain('VIRTUAL TABLE');
    } finally {
      db.close();
    }
  });

  it('keeps every search and count right through updates, moves between workspaces and deletes', async () => {
    const file = join(dir, 'writes.db');
    const first = await openStore({ location: { kind: 'sqlite', file }, collections: [scanned, withIndex] });
    const a = first.forWorkspace('ws_a');
    for (const collection of [scanned, withIndex]) {
      for (const [id, name] of [
        ['p1', 'Ada Lovelace'],
        ['p2', 'Grace Hopper'],
        ['p3', 'Alan Turing'],
        ['p4', 'Edsger Dijkstra'],
      ] as const) {
        await a.insert(collection, { id, name });
      }
      await a.update(collection, 'p1', { set: { name: 'Ada King' } });
      await a.update(collection, 'p3', { unset: ['name'] });
      await a.delete(collection, 'p4');
    }
    await first.close();
    // The store refuses to move a document between workspaces; another writer of the file may not.
    const db = keepAlive(new Database(file));
    try {
      for (const table of ['people', 'people_scanned']) {
        db.exec(`UPDATE ${table} SET workspace_id = 'ws_b', doc = json_set(doc, '$.workspaceId', 'ws_b') WHERE id = 'p2'`);
      }
    } finally {
      db.close();
    }
    const store = await openStore({ location: { kind: 'sqlite', file }, collections: [scanned, withIndex] });
    try {
      for (const workspace of ['ws_a', 'ws_b']) {
        const ws = store.forWorkspace(workspace);
        for (const value of ['a', 'ada king', 'ki', 'kin', 'lovelace', 'gr', 'grace', 'tu', 'ds', 'dijkstra']) {
          const where = [{ field: 'name', op: 'contains_text' as const, value }];
          const sort = [{ field: 'id', direction: 'asc' as const }];
          const scan = await ws.findPage(scanned, { where, sort, limit: 20 });
          const indexed = await ws.findPage(withIndex, { where, sort, limit: 20 });
          expect({ workspace, value, ...indexed }).toEqual({ workspace, value, ...scan });
          await expect(ws.count(withIndex, where)).resolves.toBe(scan.total);
        }
      }
      await expect(store.forWorkspace('ws_b').count(withIndex, [{ field: 'name', op: 'contains_text', value: 'gr' }])).resolves.toBe(1);
    } finally {
      await store.close();
    }
  });

  it('counts a short needle from the values table, without reading the documents', () => {
    const db = keepAlive(new Database(':memory:'));
    try {
      const { columns } = createCollectionSchema(db, withIndex, (sql) => keepAlive(db.prepare(sql)));
      const where = [
        { field: 'workspaceId', op: 'eq' as const, value: 'ws_a' },
        { field: 'name', op: 'contains_text' as const, value: 'ab' },
      ];
      const { sql, params } = textCountToSql(workspaceTextSearch(where, columns)!);
      const plan = keepAlive(db.prepare(`EXPLAIN QUERY PLAN ${sql}`))
        .all(...params)
        .map((row) => (row as { detail: string }).detail)
        .join('; ');
      expect(plan).toContain('people__text__name__values');
      expect(plan).not.toMatch(/\bpeople\b(?!__)/);
    } finally {
      db.close();
    }
  });
});
