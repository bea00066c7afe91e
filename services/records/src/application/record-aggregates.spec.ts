import { DomainError } from '@crm/observability';
import { callerIn, recordsHarness, type Harness } from '../testing/records-factory';

const A = callerIn('ws_a');
const B = callerIn('ws_b', { id: 'usr_bob', type: 'user' });

async function refusal(promise: Promise<unknown>): Promise<Record<string, string[]>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'invalid_argument' && error.fields) return error.fields;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('aggregates of record lists (SQLite)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
    const account = await h.service.accounts.create(A, { body: { name: 'Acme', industry: 'tools' } });
    const deals = [
      { name: 'One', value: 100, stage: 'prospecting', closeDate: '2026-11-23' },
      { name: 'Two', value: 300, stage: 'prospecting', closeDate: '2026-11-29' },
      { name: 'Three', value: 50, stage: 'closed_won', closeDate: '2026-12-01' },
      { name: 'Four', value: 10, stage: 'closed_won' },
    ];
    for (const body of deals) await h.service.opportunities.create(A, { body: { ...body, accountId: account.id } });
    const other = await h.service.accounts.create(B, { body: { name: 'Other' } });
    await h.service.opportunities.create(B, { body: { name: 'Theirs', value: 999, stage: 'prospecting', accountId: other.id } });
  });
  afterEach(() => h.close());

  it('groups by stage and month with the metrics asked, keys as ordering orders them (code points, unset last)', async () => {
    const view = await h.service.aggregates.aggregate(
      A,
      'opportunity',
      {},
      { groupBy: 'stage,closeDate:month', metrics: 'count,sum:value,avg:value' },
    );
    expect(view.groups).toEqual([
      { key: { stage: 'closed_won', 'closeDate:month': '2026-12-01' }, count: 1, sum: { value: 50 }, avg: { value: 50 } },
      { key: { stage: 'closed_won', 'closeDate:month': null }, count: 1, sum: { value: 10 }, avg: { value: 10 } },
      { key: { stage: 'prospecting', 'closeDate:month': '2026-11-01' }, count: 2, sum: { value: 400 }, avg: { value: 200 } },
    ]);
    expect(view.total).toEqual({ count: 4, sum: { value: 460 }, avg: { value: 115 } });
  });

  it('counts by default and answers only the metrics asked', async () => {
    expect((await h.service.aggregates.aggregate(A, 'opportunity', {}, { groupBy: 'stage' })).total).toEqual({ count: 4 });
    expect((await h.service.aggregates.aggregate(A, 'opportunity', {}, { metrics: 'max:value' })).total).toEqual({ max: { value: 300 } });
  });

  it("applies the list's own filters and the filter tree", async () => {
    const filter = JSON.stringify({ field: 'value', operator: 'gte', value: 50 });
    const view = await h.service.aggregates.aggregate(A, 'opportunity', { stage: 'prospecting', filter }, { groupBy: 'stage' });
    expect(view.total).toEqual({ count: 2 });
  });

  it('refuses fields that cannot be grouped by, buckets on non-dates and unknown metrics, naming the parameter', async () => {
    const groupBy = (text: string) => refusal(h.service.aggregates.aggregate(A, 'opportunity', {}, { groupBy: text }));
    expect(Object.keys(await groupBy('nope'))).toEqual(['groupBy']);
    expect(Object.keys(await groupBy('name'))).toEqual(['groupBy']);
    expect(Object.keys(await groupBy('closeDate'))).toEqual(['groupBy']);
    expect(Object.keys(await groupBy('stage:month'))).toEqual(['groupBy']);
    expect(Object.keys(await groupBy('closeDate:decade'))).toEqual(['groupBy']);
    expect(Object.keys(await groupBy('stage,source,assignedTo'))).toEqual(['groupBy']);
    const metrics = (text: string) => refusal(h.service.aggregates.aggregate(A, 'opportunity', {}, { metrics: text }));
    expect(Object.keys(await metrics('median:value'))).toEqual(['metrics']);
    expect(Object.keys(await metrics('sum:stage'))).toEqual(['metrics']);
    expect(Object.keys(await metrics('sum:nope'))).toEqual(['metrics']);
  });

  it('groups accounts by industry and leads by source, select-like by their descriptors', async () => {
    const view = await h.service.aggregates.aggregate(A, 'account', {}, { groupBy: 'industry' });
    expect(view.groups).toEqual([{ key: { industry: 'tools' }, count: 1 }]);
  });
});
