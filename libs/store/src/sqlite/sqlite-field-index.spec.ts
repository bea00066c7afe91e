import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore } from '../open-store';
import { defineCollection, StoreError, type DocumentStore, type StoredDocument } from '../port';
import { keepAlive } from './keep-alive';
import { selectToSql } from './sqlite-query';
import { createCollectionSchema, dynamicIndexName } from './sqlite-schema';

const people = defineCollection<StoredDocument & { name: string; customFields?: Record<string, unknown> }>({
  name: 'people',
  scope: 'workspace',
  fields: { name: 'string' },
  dynamicFields: ['customFields'],
});

describe('indexes of dynamic fields (SQLite)', () => {
  let dir: string;
  let file: string;
  let store: DocumentStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'field-index-'));
    file = join(dir, 'store.db');
    store = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const indexes = () => {
    const db = keepAlive(new Database(file, { readonly: true }));
    try {
      return keepAlive(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'people'`)).pluck().all() as string[];
    } finally {
      db.close();
    }
  };

  it('makes an index the filter on the field is answered from, keeps it across starts, and drops it when asked', async () => {
    await store.indexField(people, 'customFields.plan');
    await store.indexField(people, 'customFields.plan');
    const name = dynamicIndexName('people', 'customFields.plan');
    expect(indexes()).toContain(name);

    const db = keepAlive(new Database(file));
    try {
      const { columns } = createCollectionSchema(db, people, (sql) => keepAlive(db.prepare(sql)));
      const { sql, params } = selectToSql(
        {
          where: [
            { field: 'workspaceId', op: 'eq', value: 'w1' },
            { field: 'customFields.plan', op: 'eq', value: 'pro' },
          ],
          limit: 20,
        },
        columns,
      );
      const plan = (keepAlive(db.prepare(`EXPLAIN QUERY PLAN ${sql}`)).all(...params) as { detail: string }[])
        .map((r) => r.detail)
        .join('; ');
      expect(plan).toContain(name);
    } finally {
      db.close();
    }
    // A later start (the schema made again) keeps it.
    await store.close();
    store = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
    expect(indexes()).toContain(name);

    const scoped = store.forWorkspace('w1');
    await scoped.insert(people, { id: 'p1', name: 'Ada', customFields: { plan: 'pro' } });
    expect((await scoped.find(people, { where: [{ field: 'customFields.plan', op: 'eq', value: 'pro' }] })).map((p) => p.id)).toEqual([
      'p1',
    ]);

    await store.dropFieldIndex(people, 'customFields.plan');
    expect(indexes()).not.toContain(name);
  });

  it('refuses a field outside the dynamic sub-documents', async () => {
    await expect(store.indexField(people, 'name')).rejects.toBeInstanceOf(StoreError);
    await expect(store.indexField(people, 'other.plan')).rejects.toBeInstanceOf(StoreError);
  });
});
