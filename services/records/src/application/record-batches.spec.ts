import { activities, contacts, leads } from '../store/collections';
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
    const created = await h.service.recordBatches.write(A, {
      kind: 'lead',
      operation: 'upsert',
      matchOn: 'email',
      atomic: false,
      records: [lead('a@x.io'), lead('b@x.io')],
    });
    expect(created.results.map((r) => r.status)).toEqual(['created', 'created']);
    await eventually(() => h.published.length === 2);
    h.published.length = 0;

    const changed = await h.service.recordBatches.write(A, {
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
      h.service.recordBatches.write(A, {
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

  it('fails only the records whose unique custom value another record holds or an earlier record of the batch claims', async () => {
    await h.service.customFieldDefinitions.create(A, { body: { kind: 'contact', key: 'code', label: 'Code', type: 'text', unique: true } });
    const holder = await h.service.contacts.create(A, {
      body: { firstName: 'Holder', lastName: 'H', email: 'holder@x.io', customFields: { code: 'C1' } },
    });
    let n = 0;
    const contact = (code: string) => ({
      id: '',
      body: { firstName: 'Bo', lastName: 'B', email: `bo${(n += 1)}@x.io`, customFields: { code } },
    });
    const batch = (atomic: boolean) =>
      h.service.recordBatches.write(A, {
        kind: 'contact',
        operation: 'create',
        matchOn: '',
        atomic,
        records: [contact('C1'), contact('C2'), contact('C2')],
      });

    const atomic = await batch(true);
    expect(atomic.rolledBack).toBe(true);
    expect(atomic.results.map((r) => r.status)).toEqual(['error', 'skipped', 'error']);

    const answer = await batch(false);
    expect(answer.rolledBack).toBe(false);
    expect(answer.results.map((r) => [r.status, r.errors])).toEqual([
      ['error', { 'customFields.code': ['Another record of this kind in the workspace has this value.'] }],
      ['created', null],
      ['error', { 'customFields.code': ['Another record of this batch has the same customFields.code; send it once.'] }],
    ]);
    const stored = await h.store.forWorkspace('ws_a').find(contacts, {});
    expect(stored.map((c) => [c.id === holder.id, c.customFields?.code]).sort()).toEqual([
      [false, 'C2'],
      [true, 'C1'],
    ]);
  });

  it('writes nothing of an atomic batch with an error', async () => {
    const answer = await h.service.recordBatches.write(A, {
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
