import { activities, leads } from '../store/collections';
import { callerIn, eventually, recordsHarness, type Harness } from '../testing/records-factory';

const A = callerIn('ws_a');
const lead = (email: string, extra: Record<string, unknown> = {}) => ({ id: '', body: { firstName: 'Lin', email, ...extra } });

describe('batch writes', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
  });
  afterEach(() => h.close());

  it('gives each record the events and activity of a single write, and an unchanged one none', async () => {
    const created = await h.service.batchWriteRecords(A, {
      kind: 'lead',
      operation: 'upsert',
      matchOn: 'email',
      atomic: false,
      records: [lead('a@x.io'), lead('b@x.io')],
    });
    expect(created.results.map((r) => r.status)).toEqual(['created', 'created']);
    await eventually(() => h.published.length === 2);
    h.published.length = 0;

    const changed = await h.service.batchWriteRecords(A, {
      kind: 'lead',
      operation: 'upsert',
      matchOn: 'email',
      atomic: false,
      records: [lead('A@x.io', { status: 'qualified' }), lead('b@x.io')],
    });
    expect(changed.results.map((r) => r.status)).toEqual(['updated', 'unchanged']);
    await eventually(() => h.published.length === 2);
    await h.relay.sweep();
    expect(h.published.map((m) => [m.type, (m.payload as { recordId: string }).recordId])).toEqual([
      ['records.lead_status_changed.v1', created.results[0]!.id],
      ['records.record_updated.v1', created.results[0]!.id],
    ]);
    const logged = await h.store.forWorkspace('ws_a').find(activities, {});
    expect(logged.map((a) => a.action).sort()).toEqual(['created', 'created', 'updated']);
  });

  it('makes one lead per email of batches racing on the same addresses', async () => {
    const emails = Array.from({ length: 50 }, (_, i) => `racer${i}@x.io`);
    const write = () =>
      h.service.batchWriteRecords(A, {
        kind: 'lead',
        operation: 'upsert',
        matchOn: 'email',
        atomic: false,
        records: emails.map((e) => lead(e)),
      });
    const answers = await Promise.all([write(), write(), write()]);
    expect(answers.flatMap((a) => a.results).filter((r) => r.status === 'created')).toHaveLength(emails.length);
    expect(await h.store.forWorkspace('ws_a').count(leads, [])).toBe(emails.length);
  });

  it('writes nothing of an atomic batch with an error', async () => {
    const answer = await h.service.batchWriteRecords(A, {
      kind: 'lead',
      operation: 'create',
      matchOn: '',
      atomic: true,
      records: [lead('ok@x.io'), lead('not-an-email')],
    });
    expect(answer.rolledBack).toBe(true);
    expect(answer.results.map((r) => r.status)).toEqual(['skipped', 'error']);
    expect(await h.store.forWorkspace('ws_a').count(leads, [])).toBe(0);
  });
});
