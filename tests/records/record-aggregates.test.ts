/**
 * GET /api/{kind}/aggregate/ through the gateway: every answer checked against a recount of the
 * same list (all its pages through the GET list, with the same filters), for groupings by one and
 * two keys, date buckets (days, weeks starting on Monday, months, quarters, years), the list's
 * filters and `filter`, unset keys, tenancy, and each refusal the contract names.
 */
import { CLUSTER_RETRY_MS, type TestCluster } from '../support/cluster';
import {
  createAccount,
  createContact,
  createLead,
  createOpportunity,
  startRecordsCluster,
  workspace,
  type Workspace,
} from './records-fixtures';

let t: TestCluster;
let mine: Workspace;
let theirs: Workspace;

beforeAll(async () => {
  t = await startRecordsCluster();
  [mine, theirs] = await Promise.all([workspace(t), workspace(t)]);
  const acme = await createAccount(mine, { name: 'Acme', industry: 'Tools', stage: 'customer' });
  await createAccount(mine, { name: 'Globex', industry: 'Energy' });
  await createAccount(mine, { name: 'Initech' });
  const deals: Array<Record<string, unknown>> = [
    // 2026-11-23 is a Monday, 2026-11-29 a Sunday, 2026-11-30 the next Monday; 2026-03-31 ends a quarter.
    { value: 100, stage: 'prospecting', closeDate: '2026-11-23' },
    { value: 250.5, stage: 'prospecting', closeDate: '2026-11-29' },
    { value: 40, stage: 'negotiation', closeDate: '2026-11-30' },
    { value: 7, stage: 'closed_won', closeDate: '2026-03-31', assignedTo: 'owner' },
    { value: 900, stage: 'closed_won', closeDate: '2026-04-01', assignedTo: 'owner' },
    { value: 0, stage: 'closed_lost', closeDate: null },
    { value: 13, stage: 'prospecting', closeDate: null, assignedTo: 'owner' },
  ];
  for (const deal of deals) {
    const assignedTo = deal.assignedTo === 'owner' ? mine.user.id : undefined;
    await createOpportunity(mine, acme.id, { ...deal, ...(assignedTo ? { assignedTo } : {}) });
  }
  await createLead(mine, { source: 'web', status: 'new', leadScore: 10 });
  await createLead(mine, { source: 'web', status: 'qualified', leadScore: 70 });
  await createLead(mine, { source: '', status: 'new', leadScore: 35 });
  await createLead(mine, { status: 'contacted' });
  await createContact(mine, { stage: 'customer' });
  await createContact(mine, { stage: 'new' });
  await createContact(mine, { stage: 'new' });
  const theirAccount = await createAccount(theirs, { name: 'Theirs', industry: 'Tools' });
  await createOpportunity(theirs, theirAccount.id, { value: 1_000_000, stage: 'prospecting', closeDate: '2026-11-23' });
}, 120_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

type Row = Record<string, any>;
type Key = string | number | boolean | null;

/** Every record of the list with these filters, page by page. */
async function allOf(w: Workspace, kind: string, filters: Record<string, string>): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 1; ; page++) {
    const params = new URLSearchParams({ ...filters, page: String(page), limit: '100' });
    const response = await w.api.get(`/api/${kind}/?${params.toString()}`);
    expect(response.status).toBe(200);
    rows.push(...response.body.results);
    if (!response.body.next) return rows;
  }
}

const unset = (value: unknown): boolean => value === undefined || value === null || value === '';
const iso = (d: Date) => d.toISOString().slice(0, 10);

/** The contract's bucket of a date or timestamp, by its UTC date. */
function bucketOf(value: unknown, bucket: string): string | null {
  if (unset(value) || typeof value !== 'string') return null;
  const day = new Date(`${value.slice(0, 10)}T00:00:00Z`);
  switch (bucket) {
    case 'day':
      return iso(day);
    case 'week':
      return iso(new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * 86_400_000));
    case 'month':
      return `${value.slice(0, 7)}-01`;
    case 'quarter':
      return `${value.slice(0, 4)}-${String(Math.floor(day.getUTCMonth() / 3) * 3 + 1).padStart(2, '0')}-01`;
    default:
      return `${value.slice(0, 4)}-01-01`;
  }
}

function keyOf(row: Row, name: string): Key {
  const [field, bucket] = name.split(':') as [string, string | undefined];
  if (bucket) return bucketOf(row[field], bucket);
  return unset(row[field]) ? null : (row[field] as Key);
}

function compareKeys(a: Key, b: Key): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

function measure(rows: Row[], metrics: string[]): Row {
  const answer: Row = {};
  for (const metric of metrics) {
    if (metric === 'count') {
      answer.count = rows.length;
      continue;
    }
    const [op, field] = metric.split(':') as [string, string];
    const values = rows.map((r) => r[field]).filter((v): v is number => typeof v === 'number');
    const value =
      op === 'sum'
        ? values.reduce((s, v) => s + v, 0)
        : values.length === 0
          ? null
          : op === 'avg'
            ? values.reduce((s, v) => s + v, 0) / values.length
            : op === 'min'
              ? Math.min(...values)
              : Math.max(...values);
    (answer[op] ??= {})[field] = value;
  }
  return answer;
}

/** The aggregate a recount of the list gives. */
function recount(rows: Row[], groupBy: string[], metrics: string[]): Row {
  const groups = new Map<string, { key: Key[]; rows: Row[] }>();
  for (const row of rows) {
    const key = groupBy.map((name) => keyOf(row, name));
    const id = JSON.stringify(key);
    if (!groups.has(id)) groups.set(id, { key, rows: [] });
    groups.get(id)!.rows.push(row);
  }
  const ordered = [...groups.values()].sort((a, b) => {
    for (let i = 0; i < groupBy.length; i++) {
      const c = compareKeys(a.key[i]!, b.key[i]!);
      if (c !== 0) return c;
    }
    return 0;
  });
  return {
    groups: ordered.map((g) => ({ key: Object.fromEntries(groupBy.map((name, i) => [name, g.key[i]])), ...measure(g.rows, metrics) })),
    total: measure(rows, metrics),
  };
}

/** Numbers compared to 9 digits: an average is a float whichever side adds it up. */
function rounded(value: unknown): unknown {
  if (typeof value === 'number') return Math.round(value * 1e9) / 1e9;
  if (Array.isArray(value)) return value.map(rounded);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rounded(v)]));
  return value;
}

async function aggregate(w: Workspace, kind: string, groupBy: string[], metrics: string[], filters: Record<string, string> = {}) {
  const params = new URLSearchParams({ ...filters, ...(groupBy.length ? { groupBy: groupBy.join(',') } : {}), metrics: metrics.join(',') });
  return w.api.get(`/api/${kind}/aggregate/?${params.toString()}`);
}

async function expectRecount(w: Workspace, kind: string, groupBy: string[], metrics: string[], filters: Record<string, string> = {}) {
  const response = await aggregate(w, kind, groupBy, metrics, filters);
  expect(response.status).toBe(200);
  const expected = recount(await allOf(w, kind, filters), groupBy, metrics);
  expect(rounded(response.body)).toEqual(rounded(expected));
  return response.body;
}

const ALL_VALUE_METRICS = ['count', 'sum:value', 'avg:value', 'min:value', 'max:value'];

describe('GET /api/{kind}/aggregate/', () => {
  it('groups opportunities by stage and month with sum, avg, min and max of value, as a recount of the list', async () => {
    const body = await expectRecount(mine, 'opportunities', ['stage', 'closeDate:month'], ALL_VALUE_METRICS);
    expect(body.groups.length).toBeGreaterThan(3);
    expect(body.total.count).toBe(7);
  });

  it('buckets by week starting on Monday: a Sunday joins the Monday before it', async () => {
    const body = await expectRecount(mine, 'opportunities', ['closeDate:week'], ['count']);
    expect(body.groups).toEqual([
      // Tuesday 2026-03-31 and Wednesday 2026-04-01 share the week of Monday 2026-03-30.
      { key: { 'closeDate:week': '2026-03-30' }, count: 2 },
      { key: { 'closeDate:week': '2026-11-23' }, count: 2 },
      { key: { 'closeDate:week': '2026-11-30' }, count: 1 },
      { key: { 'closeDate:week': null }, count: 2 },
    ]);
  });

  it("buckets by quarter from the quarter's first day, and by day and year", async () => {
    const body = await expectRecount(mine, 'opportunities', ['closeDate:quarter'], ['count', 'sum:value']);
    expect(body.groups.map((g: Row) => g.key['closeDate:quarter'])).toEqual(['2026-01-01', '2026-04-01', '2026-10-01', null]);
    await expectRecount(mine, 'opportunities', ['closeDate:day', 'stage'], ['count']);
    await expectRecount(mine, 'contacts', ['createdAt:year'], ['count']);
    await expectRecount(mine, 'leads', ['updatedAt:day'], ['count']);
  });

  it('puts unset keys last, as null: no source, no owner', async () => {
    const leads = await expectRecount(mine, 'leads', ['source', 'status'], ['count', 'sum:leadScore', 'avg:leadScore']);
    expect(leads.groups.at(-1).key.source).toBeNull();
    const owners = await expectRecount(mine, 'opportunities', ['assignedTo'], ['count', 'max:value']);
    expect(owners.groups.map((g: Row) => g.key.assignedTo)).toEqual([mine.user.id, null]);
  });

  it("applies the list's own filters, search and a filter tree, as the list does", async () => {
    await expectRecount(mine, 'opportunities', ['stage'], ALL_VALUE_METRICS, { valueMin: '10' });
    await expectRecount(mine, 'opportunities', ['closeDate:month'], ALL_VALUE_METRICS, {
      stage: 'prospecting',
      filter: JSON.stringify({
        or: [
          { field: 'value', operator: 'gt', value: 100 },
          { field: 'closeDate', operator: 'is_empty' },
        ],
      }),
    });
    await expectRecount(mine, 'accounts', ['industry', 'stage'], ['count'], { search: 'acme' });
    const none = await expectRecount(mine, 'opportunities', ['stage'], ['count', 'avg:value'], { stage: 'closed_won', valueMin: '1000' });
    expect(none).toEqual({ groups: [], total: { count: 0, avg: { value: null } } });
  });

  it('answers every kind, one group per key, the whole list when nothing groups, and under /api/v1', async () => {
    await expectRecount(mine, 'contacts', ['stage'], ['count']);
    await expectRecount(mine, 'accounts', ['industry'], ['count']);
    await expectRecount(mine, 'leads', [], ['count', 'min:leadScore']);
    const v1 = await mine.api.get('/api/v1/opportunities/aggregate/?groupBy=stage&metrics=count');
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual((await aggregate(mine, 'opportunities', ['stage'], ['count'])).body);
  });

  it("counts only the caller's workspace", async () => {
    const body = await expectRecount(theirs, 'opportunities', ['stage'], ['count', 'sum:value']);
    expect(body).toEqual({
      groups: [{ key: { stage: 'prospecting' }, count: 1, sum: { value: 1_000_000 } }],
      total: { count: 1, sum: { value: 1_000_000 } },
    });
  });

  describe('refusals', () => {
    const refused = async (query: string, parameter: string) => {
      const before = (await mine.api.get('/api/opportunities/')).body.count;
      const response = await mine.api.get(`/api/opportunities/aggregate/?${query}`);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual([parameter]);
      expect(response.body[parameter].length).toBeGreaterThan(0);
      expect((await mine.api.get('/api/opportunities/')).body.count).toBe(before);
    };

    it('refuses an unknown group-by field', () => refused('groupBy=colour', 'groupBy'));
    it('refuses grouping by a field that is not select-like', () => refused('groupBy=name', 'groupBy'));
    it('refuses a date without a bucket, a bucket on a non-date and an unknown bucket', async () => {
      await refused('groupBy=closeDate', 'groupBy');
      await refused('groupBy=stage:month', 'groupBy');
      await refused('groupBy=closeDate:decade', 'groupBy');
    });
    it('refuses more than two group-by fields', () => refused('groupBy=stage,assignedTo,source', 'groupBy'));
    it('refuses an unknown metric', () => refused('metrics=median:value', 'metrics'));
    it('refuses a metric over an unknown field or a field that is not a number', async () => {
      await refused('metrics=sum:colour', 'metrics');
      await refused('metrics=avg:stage', 'metrics');
    });
    it('refuses a bad filter as the list does', () => refused(`filter=${encodeURIComponent('{"field":"colour"}')}`, 'filter'));
  });
});
