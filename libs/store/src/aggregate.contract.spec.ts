/**
 * The aggregate part of the store contract: groups, buckets, metrics and the total, checked
 * against the same numbers counted here from the documents. SQLite always; MongoDB when MONGO_URL
 * names a replica set (its pipelines are specified in mongo/mongo-aggregate.spec.ts).
 */
import mongoose from 'mongoose';
import { AggregateResult, Condition, defineCollection, DocumentStore, openStore, StoredDocument, StoreError } from './index';

interface Deal extends StoredDocument {
  stage?: string | null;
  owner?: string;
  value?: number | string;
  won?: boolean;
  closeDate?: string;
  createdAt?: string;
}

const deals = defineCollection<Deal>({
  name: 'deals',
  scope: 'workspace',
  fields: { stage: 'string', value: 'number', closeDate: 'string', createdAt: 'string' },
  // Covers stage, closeDate and value: SQLite reads those aggregates from it (sqlite-aggregate.spec.ts).
  indexes: [{ fields: ['stage', 'createdAt'] }, { fields: ['stage', 'closeDate', 'value'] }],
});

const mongoUrl = process.env.MONGO_URL;
const targets: { name: string; open: () => Promise<DocumentStore> }[] = [
  { name: 'SQLite :memory:', open: () => openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: [deals] }) },
  ...(mongoUrl
    ? [
        {
          name: 'MongoDB',
          open: async () => {
            const database = `crm_aggregate_contract_${process.pid}`;
            const connection = await mongoose.createConnection(mongoUrl, { dbName: database }).asPromise();
            await connection.dropDatabase();
            await connection.close();
            return openStore({ location: { kind: 'mongo', url: mongoUrl, database }, collections: [deals] });
          },
        },
      ]
    : []),
];

const DEALS: Deal[] = [
  // 2026-11-23 is a Monday, 2026-11-29 a Sunday, 2026-11-30 the next Monday.
  { id: 'd1', stage: 'won', owner: 'u1', value: 100, won: true, closeDate: '2026-11-23', createdAt: '2026-01-05T10:00:00Z' },
  { id: 'd2', stage: 'won', owner: 'u2', value: 50, won: true, closeDate: '2026-11-29', createdAt: '2026-03-31T23:59:59Z' },
  { id: 'd3', stage: 'lost', owner: 'u1', value: 7.5, won: false, closeDate: '2026-11-30', createdAt: '2026-04-01T00:00:00Z' },
  { id: 'd4', stage: '', owner: 'u1', value: 1, closeDate: '', createdAt: '2026-12-31T12:00:00Z' },
  { id: 'd5', stage: null, value: 'not a number', createdAt: '2025-12-31T12:00:00Z' },
  { id: 'd6', owner: 'u2', closeDate: '2027-02-14', createdAt: '2026-07-01T00:00:00Z' },
];

describe.each(targets)('aggregates on $name', (target) => {
  let store: DocumentStore;

  beforeAll(async () => {
    store = await target.open();
    for (const deal of DEALS) await store.forWorkspace('w1').insert(deals, deal);
    await store.forWorkspace('w2').insert(deals, { id: 'x1', stage: 'won', value: 1_000_000, closeDate: '2026-11-23' });
  });
  afterAll(() => store.close());

  const run = (groupBy: { field: string; bucket?: 'day' | 'week' | 'month' | 'quarter' | 'year' }[], where: Condition[] = []) =>
    store.forWorkspace('w1').aggregate(deals, {
      where,
      groupBy,
      metrics: [
        { op: 'sum', field: 'value' },
        { op: 'avg', field: 'value' },
        { op: 'min', field: 'value' },
        { op: 'max', field: 'value' },
      ],
    });
  const keys = (result: AggregateResult) => result.groups.map((g) => [...g.key, g.count]);

  it('groups by a field, unset keys (absent, null, empty) together and last', async () => {
    const result = await run([{ field: 'stage' }]);
    expect(keys(result)).toEqual([
      ['lost', 1],
      ['won', 2],
      [null, 3],
    ]);
    expect(result.groups[1]!.values).toEqual([150, 75, 50, 100]);
    expect(result.groups[2]!.values).toEqual([1, 1, 1, 1]);
  });

  it('counts the whole workspace in the total, numbers only, and no other workspace', async () => {
    const { total } = await run([{ field: 'stage' }]);
    expect(total.count).toBe(6);
    expect(total.values[0]).toBeCloseTo(158.5);
    expect(total.values[1]).toBeCloseTo(158.5 / 4);
    expect(total.values.slice(2)).toEqual([1, 100]);
  });

  it('gives a sum of 0 and null averages, minimums and maximums over no numbers', async () => {
    const result = await run([{ field: 'owner' }], [{ field: 'id', op: 'in', values: ['d5', 'd6'] }]);
    expect(result.groups.map((g) => [g.key[0], g.count, ...g.values])).toEqual([
      ['u2', 1, 0, null, null, null],
      [null, 1, 0, null, null, null],
    ]);
  });

  it('buckets dates by week starting on Monday', async () => {
    expect(keys(await run([{ field: 'closeDate', bucket: 'week' }]))).toEqual([
      ['2026-11-23', 2],
      ['2026-11-30', 1],
      ['2027-02-08', 1],
      [null, 2],
    ]);
  });

  it('adds the metrics of the days a bucket holds up: sum, average, minimum and maximum', async () => {
    const result = await run([{ field: 'closeDate', bucket: 'week' }]);
    expect(result.groups[0]!.values).toEqual([150, 75, 50, 100]);
    expect(result.total.values[0]).toBeCloseTo(158.5);
    expect(result.total.values.slice(2)).toEqual([1, 100]);
  });

  it('groups by a boolean and a bucket together', async () => {
    expect(keys(await run([{ field: 'won' }, { field: 'closeDate', bucket: 'month' }]))).toEqual([
      [false, '2026-11-01', 1],
      [true, '2026-11-01', 2],
      [null, '2027-02-01', 1],
      [null, null, 2],
    ]);
  });

  it('buckets timestamps by quarter, month, year and day by their UTC date', async () => {
    expect(keys(await run([{ field: 'createdAt', bucket: 'quarter' }]))).toEqual([
      ['2025-10-01', 1],
      ['2026-01-01', 2],
      ['2026-04-01', 1],
      ['2026-07-01', 1],
      ['2026-10-01', 1],
    ]);
    expect(keys(await run([{ field: 'createdAt', bucket: 'month' }]))[1]).toEqual(['2026-01-01', 1]);
    expect(keys(await run([{ field: 'createdAt', bucket: 'year' }]))).toEqual([
      ['2025-01-01', 1],
      ['2026-01-01', 5],
    ]);
    expect(keys(await run([{ field: 'createdAt', bucket: 'day' }]))[2]).toEqual(['2026-03-31', 1]);
  });

  it('groups by two keys, each ascending with unset last', async () => {
    expect(keys(await run([{ field: 'owner' }, { field: 'stage' }]))).toEqual([
      ['u1', 'lost', 1],
      ['u1', 'won', 1],
      ['u1', null, 1],
      ['u2', 'won', 1],
      ['u2', null, 1],
      [null, null, 1],
    ]);
  });

  it('reads an undeclared boolean key back as a boolean', async () => {
    expect(keys(await run([{ field: 'won' }]))).toEqual([
      [false, 1],
      [true, 2],
      [null, 3],
    ]);
  });

  it('applies the conditions to groups and total alike', async () => {
    const result = await run([{ field: 'stage' }], [{ field: 'value', op: 'gte', value: 50 }]);
    expect(keys(result)).toEqual([['won', 2]]);
    expect(result.total.count).toBe(2);
  });

  it('answers no groups and a zero total when nothing matches', async () => {
    const result = await run([{ field: 'stage' }], [{ field: 'stage', op: 'eq', value: 'none' }]);
    expect(result).toEqual({ groups: [], total: { key: [], count: 0, values: [0, null, null, null] } });
  });

  it('refuses field names that are not identifiers and unknown buckets or metrics', async () => {
    const scoped = store.forWorkspace('w1');
    await expect(scoped.aggregate(deals, { groupBy: [{ field: "x') --" }], metrics: [] })).rejects.toBeInstanceOf(StoreError);
    await expect(scoped.aggregate(deals, { groupBy: [{ field: 'closeDate', bucket: 'decade' as never }], metrics: [] })).rejects.toThrow(
      'Invalid date bucket',
    );
    await expect(scoped.aggregate(deals, { groupBy: [], metrics: [{ op: 'median' as never, field: 'value' }] })).rejects.toThrow(
      'Invalid metric',
    );
  });
});
