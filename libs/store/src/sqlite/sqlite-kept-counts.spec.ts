import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AggregateQuery, Condition, defineCollection, DocumentStore, openStore, SortKey, StoredDocument, WriteOp } from '../index';
import { keepAlive } from './keep-alive';

interface Deal extends StoredDocument {
  name: string;
  stage: string;
  customFields?: Record<string, unknown>;
}

const deals = defineCollection<Deal>({
  name: 'deals',
  scope: 'workspace',
  fields: { name: 'string', stage: 'string' },
  dynamicFields: ['customFields'],
});
const DEALS = 6000;
const STAGES = ['new', 'won', 'lost'];

function deal(n: number, workspace: string): WriteOp {
  // Every 500th deal is a rare one. `rank` sorts the free deals (a third) after every other, so a
  // walk of its index from the top meets none of them within its budget: the bunched case.
  const rare = n % 500 === 0;
  const plan = rare ? 'rare' : ['pro', 'team', 'free'][n % 3]!;
  return {
    kind: 'insert',
    collection: deals,
    document: {
      id: `${workspace}-${String(n).padStart(5, '0')}`,
      name: `deal ${n}`,
      stage: STAGES[n % 3]!,
      customFields: {
        plan,
        seats: (n * 37) % 500,
        rank: plan === 'free' ? 10_000 + n : n % 997,
        // Unset in every 7th deal; the code is '' in every 5th and absent in every 11th (unset alike).
        ...(n % 7 === 0 ? {} : { arr: (n * 7919) % 1000 }),
        ...(n % 11 === 0 ? {} : { code: n % 5 === 0 ? '' : `C-${(n * 13) % 400}` }),
      },
    },
  };
}

const inWorkspace = (w: string, where: Condition[]): Condition[] => [{ field: 'workspaceId', op: 'eq', value: w }, ...where];
const COMMON: Condition[] = [
  { field: 'customFields.plan', op: 'in', values: ['pro', 'team'] },
  { field: 'customFields.seats', op: 'gte', value: 100 },
];
const RARE: Condition[] = [{ field: 'customFields.plan', op: 'eq', value: 'rare' }];
const FREE: Condition[] = [{ field: 'customFields.plan', op: 'eq', value: 'free' }];
const BY_ARR: SortKey[] = [{ field: 'customFields.arr', direction: 'desc' }];
const BY_RANK: SortKey[] = [{ field: 'customFields.rank', direction: 'asc' }];
/** As the records service orders a custom field: its unset values above every value. */
const BY_ARR_UNSET_HIGH: SortKey[] = [{ field: 'customFields.arr', direction: 'desc', unset: 'high' }];
const BY_ARR_UNSET_HIGH_ASC: SortKey[] = [{ field: 'customFields.arr', direction: 'asc', unset: 'high' }];
const BY_CODE_THEN_ARR: SortKey[] = [
  { field: 'customFields.code', direction: 'desc', unset: 'high' },
  { field: 'customFields.arr', direction: 'asc', unset: 'high' },
];
const BY_STAGE: AggregateQuery = {
  where: [],
  groupBy: [{ field: 'stage' }],
  metrics: [{ op: 'sum', field: 'customFields.arr' }],
};

let dir: string;
let file: string;
let store: DocumentStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crm-kept-counts-'));
  file = join(dir, 'deals.db');
  store = await openStore({ location: { kind: 'sqlite', file }, collections: [deals] });
  for (const w of ['slotted', 'plain']) {
    await store.forWorkspace(w).commit(Array.from({ length: DEALS }, (_, n) => deal(n, w)));
  }
  for (const field of ['plan', 'seats', 'rank', 'arr', 'code']) await store.indexField(deals, `customFields.${field}`, 'slotted');
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const page = (w: string, where: Condition[], sort: SortKey[], limit = 20, offset = 0) =>
  store.forWorkspace(w).findPage(deals, { where: inWorkspace(w, where), sort, limit, offset });
const ids = (items: Deal[]) => items.map((d) => d.id.slice(d.id.indexOf('-') + 1));
const update = (w: string, n: number, set: Record<string, unknown>): WriteOp => ({
  kind: 'update',
  collection: deals,
  id: `${w}-${String(n).padStart(5, '0')}`,
  change: { set },
});
/** Another process's connection to the file. */
const rawFile = () => keepAlive(new Database(file));
/** The workspace's documents meeting a SQL test, counted straight from the file. */
async function rawCount(test: string, workspace: string): Promise<number> {
  const db = rawFile();
  try {
    return keepAlive(db.prepare(`SELECT count(*) FROM deals WHERE workspace_id = ? AND ${test}`))
      .pluck(true)
      .get(workspace) as number;
  } finally {
    db.close();
  }
}

describe('SQLite counts and aggregates kept while their workspace data version stands', () => {
  it('pages alike from a slot index walk (a known count) and from the documents, common and bunched matches', async () => {
    for (const [where, sort] of [
      [COMMON, BY_ARR],
      [COMMON, BY_RANK],
      [COMMON, BY_ARR_UNSET_HIGH],
      [COMMON, BY_ARR_UNSET_HIGH_ASC],
      [COMMON, BY_CODE_THEN_ARR],
      [FREE, BY_ARR_UNSET_HIGH],
      [FREE, BY_RANK],
      [RARE, BY_RANK],
      [RARE, BY_ARR],
    ] as const) {
      for (const [limit, offset] of [
        [20, 0],
        [7, 30],
        [50, 0],
        [20, 900],
      ]) {
        // Twice each: the first reads the count, the second pages with it known.
        for (let round = 0; round < 2; round++) {
          const [a, b] = await Promise.all(['slotted', 'plain'].map((w) => page(w, where, sort, limit, offset)));
          expect({ where, sort, limit, offset, total: a!.total, items: ids(a!.items) }).toEqual({
            where,
            sort,
            limit,
            offset,
            total: b!.total,
            items: ids(b!.items),
          });
        }
      }
    }
    expect((await page('slotted', RARE, BY_RANK)).total).toBe(DEALS / 500);
  });

  it('counts, pages and aggregates right after every kind of write of this process', async () => {
    const ws = store.forWorkspace('slotted');
    const count = () => ws.count(deals, inWorkspace('slotted', COMMON));
    const won = async () =>
      (await ws.aggregate(deals, { ...BY_STAGE, where: inWorkspace('slotted', []) })).groups.find((g) => g.key[0] === 'won');
    const before = await count();
    const wonBefore = await won();
    await expect(count()).resolves.toBe(before);

    const added = { id: 'slotted-added', name: 'added', stage: 'new', customFields: { plan: 'pro', seats: 200, rank: 1, arr: 5 } };
    await ws.commit([{ kind: 'insert', collection: deals, document: added }]);
    await expect(count()).resolves.toBe(before + 1);
    await expect(page('slotted', COMMON, BY_ARR)).resolves.toMatchObject({ total: before + 1 });

    await ws.commit([{ kind: 'update', collection: deals, id: added.id, change: { set: { 'customFields.seats': 1 } } }]);
    await expect(count()).resolves.toBe(before);
    await ws.commit([update('slotted', 2, { stage: 'won' })]);
    expect((await won())!.count).toBe(wonBefore!.count + 1);

    await ws.updateMany(deals, inWorkspace('slotted', [{ field: 'customFields.plan', op: 'eq', value: 'team' }]), {
      set: { 'customFields.plan': 'free' },
    });
    const onlyPro = await count();
    expect(onlyPro).toBeLessThan(before);
    const plainPro = inWorkspace('plain', [COMMON[1]!, { field: 'customFields.plan', op: 'eq', value: 'pro' }]);
    expect(onlyPro).toBe(await store.forWorkspace('plain').count(deals, plainPro));

    await ws.deleteMany(deals, inWorkspace('slotted', [{ field: 'customFields.plan', op: 'eq', value: 'pro' }]));
    await expect(count()).resolves.toBe(0);
    await expect(page('slotted', COMMON, BY_ARR)).resolves.toEqual({ total: 0, items: [] });
  });

  it('counts right after another process writes the file', async () => {
    const count = () => store.forWorkspace('plain').count(deals, inWorkspace('plain', RARE));
    await expect(count()).resolves.toBe(DEALS / 500);
    const other = await openStore({ location: { kind: 'sqlite', file }, collections: [deals] });
    try {
      await other.forWorkspace('plain').commit([update('plain', 1, { 'customFields.plan': 'rare' })]);
      await expect(count()).resolves.toBe(DEALS / 500 + 1);
    } finally {
      await other.close();
    }
  });

  it('reads a count again only when the changes move (a write the triggers did not see goes unseen)', async () => {
    const count = () => store.forWorkspace('plain').count(deals, inWorkspace('plain', [{ field: 'stage', op: 'eq', value: 'lost' }]));
    const before = await count();
    const db = rawFile();
    try {
      db.exec('DROP TRIGGER "deals__count__changed"');
      keepAlive(db.prepare(`UPDATE deals SET doc = json_set(doc, '$.stage', 'lost') WHERE id = 'plain-00000'`)).run();
      await expect(count()).resolves.toBe(before);
      keepAlive(
        db.prepare(`UPDATE store_workspace_counts SET changes = changes + 1 WHERE collection = 'deals' AND workspace_id = 'plain'`),
      ).run();
      await expect(count()).resolves.toBe(before + 1);
    } finally {
      db.close();
    }
  });

  it('carries a count over inserts: the new matches added, the earlier ones not read again', async () => {
    const ws = store.forWorkspace('plain');
    const lost = inWorkspace('plain', [{ field: 'stage', op: 'eq', value: 'lost' }]);
    const before = await ws.count(deals, lost);
    const db = rawFile();
    try {
      // Unseen by the triggers: were the count read anew, it would be one more.
      db.exec('DROP TRIGGER IF EXISTS "deals__count__changed"');
      keepAlive(db.prepare(`UPDATE deals SET doc = json_set(doc, '$.stage', 'lost') WHERE id = 'plain-00003'`)).run();
      const lostDeal = (id: string) => ({ id, name: id, stage: 'lost' });
      await ws.commit([
        { kind: 'insert', collection: deals, document: lostDeal('plain-new-1') },
        { kind: 'insert', collection: deals, document: { id: 'plain-new-2', name: 'won', stage: 'won' } },
      ]);
      await store.forWorkspace('slotted').commit([{ kind: 'insert', collection: deals, document: lostDeal('slotted-new-1') }]);
      await expect(ws.count(deals, lost)).resolves.toBe(before + 1);
      await ws.commit([{ kind: 'insert', collection: deals, document: lostDeal('plain-new-3') }]);
      await expect(ws.count(deals, lost)).resolves.toBe(before + 2);
      await expect(ws.findPage(deals, { where: lost, limit: 1 })).resolves.toMatchObject({ total: before + 2 });
      // With a text test among the conditions, and a page over the side table alone.
      const named = inWorkspace('plain', [
        { field: 'stage', op: 'eq', value: 'lost' },
        { field: 'name', op: 'contains_text', value: 'plain-new' },
      ]);
      await expect(ws.count(deals, named)).resolves.toBe(2);
      await ws.commit([{ kind: 'insert', collection: deals, document: lostDeal('plain-new-4') }]);
      await expect(ws.count(deals, named)).resolves.toBe(3);
    } finally {
      db.close();
    }
  });

  it('counts anew after a delete, a document moved in, or more inserts than it reads', async () => {
    const pro = inWorkspace('slotted', [{ field: 'customFields.plan', op: 'eq', value: 'pro' }]);
    const fresh = inWorkspace('plain', [{ field: 'stage', op: 'eq', value: 'fresh' }]);
    const proDeal = (id: string): WriteOp => ({
      kind: 'insert',
      collection: deals,
      document: { id, name: id, stage: 'fresh', customFields: { plan: 'pro', arr: 1 } },
    });
    // Older than every count below, to be moved into 'plain' under their marks.
    await store.forWorkspace('other').commit([proDeal('other-1')]);
    const check = async () => {
      const counted = {
        pro: await rawCount("json_extract(doc, '$.customFields.plan') = 'pro'", 'slotted'),
        fresh: await rawCount("json_extract(doc, '$.stage') = 'fresh'", 'plain'),
      };
      await expect(store.forWorkspace('slotted').count(deals, pro)).resolves.toBe(counted.pro);
      await expect(page('slotted', [pro[1]!], BY_ARR)).resolves.toMatchObject({ total: counted.pro });
      await expect(store.forWorkspace('plain').count(deals, fresh)).resolves.toBe(counted.fresh);
    };
    await check();
    await store.forWorkspace('slotted').commit([proDeal('slotted-top-1')]);
    await store.forWorkspace('plain').commit([proDeal('plain-top-1')]);
    await check();
    // The table's highest row deleted, by another workspace: a rowid below the marks comes again.
    await store.forWorkspace('plain').deleteMany(deals, inWorkspace('plain', [{ field: 'id', op: 'eq', value: 'plain-top-1' }]));
    await store.forWorkspace('slotted').commit([proDeal('slotted-top-2')]);
    await check();
    const db = rawFile();
    try {
      keepAlive(db.prepare(`UPDATE deals SET workspace_id = 'plain' WHERE id = 'other-1'`)).run();
    } finally {
      db.close();
    }
    await check();
    await store.forWorkspace('slotted').commit(Array.from({ length: 6000 }, (_, n) => proDeal(`slotted-bulk-${n}`)));
    await check();
  });

  it('upgrades a file counted before versions: its triggers made again, the counts kept', async () => {
    await store.close();
    const db = rawFile();
    for (const event of ['insert', 'delete', 'update', 'changed']) db.exec(`DROP TRIGGER IF EXISTS "deals__count__${event}"`);
    db.exec('ALTER TABLE store_workspace_counts DROP COLUMN version');
    const add = `INSERT INTO store_workspace_counts (collection, workspace_id, n) SELECT 'deals', new.workspace_id, 1 WHERE new.workspace_id IS NOT NULL ON CONFLICT DO UPDATE SET n = n + 1;`;
    const remove = `UPDATE store_workspace_counts SET n = n - 1 WHERE collection = 'deals' AND workspace_id = old.workspace_id;`;
    db.exec(`CREATE TRIGGER "deals__count__insert" AFTER INSERT ON "deals" BEGIN ${add} END`);
    db.exec(`CREATE TRIGGER "deals__count__delete" AFTER DELETE ON "deals" BEGIN ${remove} END`);
    db.close();
    store = await openStore({ location: { kind: 'sqlite', file }, collections: [deals] });
    const ws = store.forWorkspace('plain');
    const lost = inWorkspace('plain', [{ field: 'stage', op: 'eq', value: 'lost' }]);
    const before = await ws.count(deals, lost);
    await ws.commit([update('plain', 1, { stage: 'lost' })]);
    await expect(ws.count(deals, lost)).resolves.toBe(before + 1);
    const all = (await ws.findPage(deals, { where: inWorkspace('plain', []), limit: 1 })).total;
    await expect(ws.count(deals, inWorkspace('plain', [{ field: 'id', op: 'ne', value: '' }]))).resolves.toBe(all);
  });
});
