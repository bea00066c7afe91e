import Database from 'better-sqlite3';
import { defineCollection, StoredDocument } from '../port';
import { keepAlive } from './keep-alive';
import { createCollectionSchema } from './sqlite-schema';
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

  it('counts a workspace on its narrowest index', () => {
    const { columns } = createCollectionSchema(db, contacts, prepare);
    const { sql, params } = countToSql([{ field: 'workspaceId', op: 'eq', value: 'ws_a' }], columns);
    expect(plan(sql, params)).toContain('COVERING INDEX contacts__workspaceId__id ');
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
