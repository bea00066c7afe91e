import Database from 'better-sqlite3';
import { CollectionDefinition, defineCollection, IndexDefinition, StoredDocument } from '../port';
import { keepAlive } from './keep-alive';
import { createCollectionSchema } from './sqlite-schema';
import { keepUpWithInserts } from './sqlite-insert-upkeep';
import { countToSql, selectToSql } from './sqlite-query';

const contacts = defineCollection<StoredDocument>({
  name: 'contacts',
  scope: 'workspace',
  fields: { emailKey: 'string', createdAt: 'string', stage: 'string' },
  indexes: [{ fields: ['createdAt'] }, { fields: ['stage', 'createdAt'] }],
});

let db: Database.Database;
const prepare = (sql: string) => keepAlive(db.prepare(sql));

function plan(sql: string, params: unknown[]): string {
  return (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('; ');
}

describe('SQLite schema', () => {
  beforeEach(() => {
    db = keepAlive(new Database(':memory:'));
  });
  afterEach(() => db.close());

  it('seeds planner statistics so a batch lookup by a field uses its index, not a scan of the workspace', () => {
    const { columns } = createCollectionSchema(db, contacts, prepare);
    const keys = Array.from({ length: 500 }, (_, i) => `person-${i}@example.com`);
    const { sql, params } = selectToSql(
      {
        where: [
          { field: 'workspaceId', op: 'eq', value: 'ws_a' },
          { field: 'emailKey', op: 'in', values: keys },
        ],
      },
      columns,
    );
    expect(plan(sql, params)).toContain('contacts__workspaceId__emailKey__id');
    // Sorted pages still read straight off their sort index.
    const page = selectToSql(
      { where: [{ field: 'workspaceId', op: 'eq', value: 'ws_a' }], sort: [{ field: 'createdAt', direction: 'desc' }], limit: 20 },
      columns,
    );
    expect(plan(page.sql, page.params)).toMatch(/contacts__workspaceId__createdAt__id(?!.*TEMP B-TREE)/);
  });

  it("builds no B-tree over a text-searched field's values (its text index answers every search), and drops one an earlier version made", () => {
    const people = defineCollection<StoredDocument>({
      name: 'people',
      scope: 'workspace',
      fields: { searchText: 'string', createdAt: 'string' },
      textSearch: ['searchText'],
    });
    const indexes = () => prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'people'`).pluck(true).all();
    createCollectionSchema(db, people, prepare);
    expect(indexes()).toContain('people__workspaceId__createdAt__id');
    expect(indexes()).not.toContain('people__workspaceId__searchText__id');
    // A file from before: the index goes at the next start.
    db.exec(`CREATE INDEX people__workspaceId__searchText__id ON people (workspace_id, "f:searchText", id)`);
    createCollectionSchema(db, people, prepare);
    expect(indexes()).not.toContain('people__workspaceId__searchText__id');
    // An index the collection declares on the field is kept.
    createCollectionSchema(db, { ...people, indexes: [{ fields: ['searchText'] }] }, prepare);
    expect(indexes()).toContain('people__workspaceId__searchText__id');
  });

  it('lets a purge across workspaces read an index declared across workspaces instead of scanning the table', () => {
    const sent = (indexes: IndexDefinition[]) =>
      defineCollection<StoredDocument>({ name: 'sent', scope: 'workspace', fields: { createdAt: 'string' }, indexes });
    const purge = (definition: CollectionDefinition) => {
      const { columns } = createCollectionSchema(db, definition, prepare);
      const { sql, params } = selectToSql(
        // The query DocumentStore.purge makes: oldest first.
        { where: [{ field: 'createdAt', op: 'lt', value: '2026-01-01' }], sort: [{ field: 'createdAt', direction: 'asc' }], limit: 500 },
        columns,
      );
      return plan(sql, params);
    };
    // Without it: a skip-scan of every workspace's slice of (workspaceId, createdAt), then a sort.
    expect(purge(sent([]))).toContain('TEMP B-TREE');
    expect(purge(sent([{ fields: ['createdAt'], acrossWorkspaces: true }]))).toMatch(
      /^SEARCH sent USING INDEX sent__createdAt__id \(\S*createdAt<\?\)$/,
    );
  });

  it('counts a workspace from its kept count, and a filtered one on its narrowest index', () => {
    const { columns } = createCollectionSchema(db, contacts, prepare);
    const whole = countToSql([{ field: 'workspaceId', op: 'eq', value: 'ws_a' }], columns);
    expect(plan(whole.sql, whole.params)).toContain('store_workspace_counts');
    const { sql, params } = countToSql(
      [
        { field: 'workspaceId', op: 'eq', value: 'ws_a' },
        { field: 'id', op: 'gt', value: 'c' },
      ],
      columns,
    );
    expect(plan(sql, params)).toContain('COVERING INDEX contacts__workspaceId__id ');
  });

  it("keeps every workspace count through inserts (the adapter's upkeep), deletes and moves, and counts an existing table when the counts are new", () => {
    const insert = (id: string, ws: string) => prepare('INSERT INTO contacts (id, workspace_id, doc) VALUES (?, ?, ?)').run(id, ws, '{}');
    db.exec('CREATE TABLE contacts (id TEXT PRIMARY KEY, workspace_id TEXT, doc TEXT NOT NULL)');
    for (const id of ['c1', 'c2', 'c3']) insert(id, 'ws_a');
    insert('c4', 'ws_b');
    const collection = createCollectionSchema(db, contacts, prepare);
    const { columns } = collection;
    const count = (ws: string) => {
      const { sql, params } = countToSql([{ field: 'workspaceId', op: 'eq', value: ws }], columns);
      return prepare(sql)
        .pluck(true)
        .get(...params);
    };
    expect([count('ws_a'), count('ws_b'), count('ws_c')]).toEqual([3, 1, 0]);
    insert('c5', 'ws_c');
    keepUpWithInserts(prepare, collection, [{ id: 'c5', workspaceId: 'ws_c' }]);
    prepare('DELETE FROM contacts WHERE id = ?').run('c1');
    prepare('UPDATE contacts SET workspace_id = ? WHERE id = ?').run('ws_b', 'c2');
    prepare('UPDATE contacts SET doc = ? WHERE id = ?').run('{"a":1}', 'c3');
    expect([count('ws_a'), count('ws_b'), count('ws_c')]).toEqual([1, 2, 1]);
    // Reopening does not count twice.
    createCollectionSchema(db, contacts, prepare);
    expect([count('ws_a'), count('ws_b'), count('ws_c')]).toEqual([1, 2, 1]);
  });

  it('leaves no insert trigger on a collection, dropping one an earlier release made, and counts nothing twice then', () => {
    const triggers = () =>
      prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'contacts' AND sql LIKE '%AFTER INSERT%'`)
        .pluck(true)
        .all();
    const collection = createCollectionSchema(db, contacts, prepare);
    expect(triggers()).toEqual([]);
    prepare('INSERT INTO contacts (id, workspace_id, doc) VALUES (?, ?, ?)').run('c1', 'ws_a', '{}');
    keepUpWithInserts(prepare, collection, [{ id: 'c1', workspaceId: 'ws_a' }]);
    // The earlier release's trigger, beside this release's others.
    db.exec(
      `CREATE TRIGGER contacts__count__insert AFTER INSERT ON contacts BEGIN INSERT INTO store_workspace_counts (collection, workspace_id, n, version)` +
        ` SELECT 'contacts', new.workspace_id, 1, 1 WHERE new.workspace_id IS NOT NULL ON CONFLICT DO UPDATE SET n = n + 1, version = version + 1; END`,
    );
    const again = createCollectionSchema(db, contacts, prepare);
    expect(triggers()).toEqual([]);
    prepare('INSERT INTO contacts (id, workspace_id, doc) VALUES (?, ?, ?)').run('c2', 'ws_a', '{}');
    keepUpWithInserts(prepare, again, [{ id: 'c2', workspaceId: 'ws_a' }]);
    const { sql, params } = countToSql([{ field: 'workspaceId', op: 'eq', value: 'ws_a' }], again.columns);
    expect(
      prepare(sql)
        .pluck(true)
        .get(...params),
    ).toBe(2);
  });

  it('rewrites the statistics at every start, whatever ANALYZE measured in between', () => {
    createCollectionSchema(db, contacts, prepare);
    prepare('INSERT INTO contacts (id, workspace_id, doc) VALUES (?, ?, ?)').run('c1', 'ws_a', '{"id":"c1","workspaceId":"ws_a"}');
    db.exec('ANALYZE');
    createCollectionSchema(db, contacts, prepare);
    const stats = prepare(`SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'contacts' ORDER BY idx`).all() as {
      idx: string;
      stat: string;
    }[];
    expect(stats).toContainEqual({ idx: 'contacts__workspaceId__id', stat: '10000000 100000 1 sz=40' });
    expect(stats).toContainEqual({ idx: 'contacts__workspaceId__stage__createdAt__id', stat: '10000000 100000 10 1 1 sz=80' });
  });
});
