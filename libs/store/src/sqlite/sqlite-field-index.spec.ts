import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore } from '../open-store';
import { defineCollection, StoreError, type Condition, type DocumentStore, type SortKey, type StoredDocument } from '../port';
import { keepAlive } from './keep-alive';
import { countToSql, selectToSql } from './sqlite-query';
import { createCollectionSchema } from './sqlite-schema';

type Person = StoredDocument & { name: string; customFields?: Record<string, unknown> };
const people = defineCollection<Person>({
  name: 'people',
  scope: 'workspace',
  fields: { name: 'string' },
  dynamicFields: ['customFields'],
});

/** Values of every kind a custom field holds, absent and null among them. */
function values(n: number): Record<string, unknown> | undefined {
  if (n % 11 === 0) return undefined;
  const fields: Record<string, unknown> = {
    plan: ['free', 'pro', 'team', ''][n % 4],
    seats: n % 5 === 0 ? null : (n * 37) % 50,
    arr: (n * 7.5) % 40,
    churn: n % 3 === 0,
    code: `P-${n % 7}`,
    tags: [['a'], ['a', 'b'], []][n % 3],
  };
  if (n % 6 === 0) delete fields.plan;
  return fields;
}

const CONDITIONS: Condition[][] = [
  [{ field: 'customFields.plan', op: 'eq', value: 'pro' }],
  [{ field: 'customFields.plan', op: 'ne', value: 'pro' }],
  [{ field: 'customFields.plan', op: 'in', values: ['pro', 'team', null] }],
  [{ field: 'customFields.plan', op: 'nin', values: ['pro'] }],
  [{ field: 'customFields.plan', op: 'eq', value: null }],
  [{ field: 'customFields.plan', op: 'exists', value: false }],
  [{ field: 'customFields.plan', op: 'empty', value: true }],
  [{ field: 'customFields.seats', op: 'gte', value: 20 }],
  [{ field: 'customFields.seats', op: 'lt', value: 10 }],
  [{ field: 'customFields.arr', op: 'gt', value: 12.5 }],
  [{ field: 'customFields.churn', op: 'eq', value: true }],
  [{ field: 'customFields.churn', op: 'ne', value: true }],
  [{ field: 'customFields.code', op: 'contains_text', value: 'p-3' }],
  [{ field: 'customFields.tags', op: 'has', value: 'b' }],
  [{ not: [{ field: 'customFields.plan', op: 'eq', value: 'free' }] }],
  [{ or: [[{ field: 'customFields.plan', op: 'eq', value: 'team' }], [{ field: 'customFields.seats', op: 'lte', value: 5 }]] }],
  [
    { field: 'customFields.plan', op: 'in', values: ['pro', 'team'] },
    { field: 'customFields.seats', op: 'gte', value: 10 },
    { field: 'customFields.churn', op: 'eq', value: false },
  ],
  [
    { field: 'name', op: 'contains_text', value: '1' },
    { field: 'customFields.arr', op: 'lt', value: 30 },
  ],
];
const SORTS: SortKey[][] = [
  [{ field: 'customFields.arr', direction: 'desc' }],
  [{ field: 'customFields.plan', direction: 'asc', unset: 'high' }],
  [
    { field: 'customFields.churn', direction: 'asc' },
    { field: 'customFields.seats', direction: 'desc' },
  ],
];
const FIELDS = ['plan', 'seats', 'arr', 'churn', 'code', 'tags'].map((key) => `customFields.${key}`);

describe('dynamic fields in slots of a side table (SQLite)', () => {
  let dir: string;
  let file: string;
  let store: DocumentStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'field-slots-'));
    file = join(dir, 'store.db');
    store = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const fill = async (workspaceId: string, from: number, to: number) => {
    const scoped = store.forWorkspace(workspaceId);
    for (let n = from; n < to; n++) {
      const fields = values(n);
      await scoped.insert(people, { id: `${workspaceId}-${n}`, name: `person ${n}`, ...(fields ? { customFields: fields } : {}) });
    }
  };
  const ids = (found: Person[]) => found.map((p) => p.id.slice(p.id.indexOf('-') + 1));
  /** Every condition and ordering answers alike in `slotted` and in `plain` (the same documents read from themselves). */
  const expectSameAnswers = async (slotted: string, plain: string) => {
    for (const where of CONDITIONS) {
      for (const sort of [[], ...SORTS]) {
        const [a, b] = await Promise.all(
          [slotted, plain].map((w) => store.forWorkspace(w).findPage(people, { where, sort, limit: 7, offset: 2 })),
        );
        expect({ where, sort, total: a!.total, items: ids(a!.items) }).toEqual({ where, sort, total: b!.total, items: ids(b!.items) });
      }
      const [a, b] = await Promise.all([slotted, plain].map((w) => store.forWorkspace(w).count(people, where)));
      expect({ where, count: a }).toEqual({ where, count: b });
    }
  };
  const sqlite = () => keepAlive(new Database(file, { readonly: true }));

  it('answers every operator and ordering as the documents do: filled at assignment, kept by inserts, updates and deletes', async () => {
    await fill('w1', 0, 60);
    await fill('w2', 0, 60);
    for (const field of FIELDS) await store.indexField(people, field, 'w1');
    await store.indexField(people, FIELDS[0]!, 'w1'); // again: nothing changes
    await fill('w1', 60, 90);
    await fill('w2', 60, 90);
    for (const w of ['w1', 'w2']) {
      const scoped = store.forWorkspace(w);
      await scoped.updateMany(people, [{ field: 'customFields.seats', op: 'lt', value: 10 }], { set: { 'customFields.plan': 'team' } });
      await scoped.update(people, `${w}-7`, { unset: ['customFields.arr'], set: { 'customFields.churn': true } });
      await scoped.deleteMany(people, [{ field: 'customFields.code', op: 'eq', value: 'P-2' }]);
      await scoped.commit([
        { kind: 'insert', collection: people, document: { id: `${w}-500`, name: 'x', customFields: { plan: 'pro', seats: 40 } } },
      ]);
    }
    await expectSameAnswers('w1', 'w2');

    const db = sqlite();
    try {
      const side = keepAlive(db.prepare('SELECT count(*) FROM people__dynamic WHERE ws = ?')).pluck();
      expect([side.get('w1'), side.get('w2')]).toEqual([await store.forWorkspace('w1').count(people, []), 0]);
    } finally {
      db.close();
    }
  });

  it('reads a page and a count filtered by a slot from its index, not from the documents', async () => {
    await fill('w1', 0, 40);
    for (const field of FIELDS) await store.indexField(people, field, 'w1');
    const db = keepAlive(new Database(file));
    try {
      const { columns } = createCollectionSchema(db, people, (sql) => keepAlive(db.prepare(sql)));
      const slots = new Map(
        keepAlive(db.prepare(`SELECT field, slot FROM __dynamic_slots WHERE workspace_id = 'w1'`)).raw().all() as [string, number][],
      );
      const where: Condition[] = [
        { field: 'workspaceId', op: 'eq', value: 'w1' },
        { field: 'customFields.code', op: 'eq', value: 'P-3' },
      ];
      const plan = ({ sql, params }: { sql: string; params: unknown[] }) =>
        (keepAlive(db.prepare(`EXPLAIN QUERY PLAN ${sql}`)).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
      // The slot's index, entered at the workspace's values (not skip-scanned across workspaces).
      const code = `people__dynamic__s${FIELDS.indexOf('customFields.code')} (ws=? AND`;
      const page = plan(selectToSql({ where, sort: [{ field: 'name', direction: 'asc' }], limit: 20 }, columns.withSlots(slots)));
      expect(page).toContain(code);
      const count = countToSql(where, columns.withSlots(slots));
      expect(count.sql).not.toContain('"people"'); // the side table alone
      expect(plan(count)).toContain(code);
    } finally {
      db.close();
    }
  });

  it('frees a slot with its values, gives it to the next field filled from the documents, and keeps slots across starts', async () => {
    await fill('w1', 0, 30);
    await fill('w2', 0, 30);
    await store.indexField(people, 'customFields.plan', 'w1');
    await store.indexField(people, 'customFields.seats', 'w1');
    await store.dropFieldIndex(people, 'customFields.plan', 'w1');
    await store.indexField(people, 'customFields.code', 'w1'); // takes slot 0, plan's
    await store.close();
    store = await openStore({ location: { kind: 'sqlite', file }, collections: [people] });
    await expectSameAnswers('w1', 'w2');
    const db = sqlite();
    try {
      const slots = keepAlive(db.prepare('SELECT field, slot FROM __dynamic_slots WHERE workspace_id = ? ORDER BY slot')).raw().all('w1');
      expect(slots).toEqual([
        ['customFields.code', 0],
        ['customFields.seats', 1],
      ]);
    } finally {
      db.close();
    }
  });

  it('refuses a field outside the dynamic sub-documents', async () => {
    await expect(store.indexField(people, 'name', 'w1')).rejects.toBeInstanceOf(StoreError);
    await expect(store.indexField(people, 'other.plan', 'w1')).rejects.toBeInstanceOf(StoreError);
  });
});
