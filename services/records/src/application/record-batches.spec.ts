import { activities, contacts, leads, outbox } from '../store/collections';
import { eventsOfGroup, RECORD_EVENT_GROUP, RECORDS_WRITTEN } from '@crm/vocabulary';
import { callerIn, eventually, recordsHarness, type Harness } from '../testing/records-factory';

/** The events published messages stand for (a group's each on its own), as [type, record id]. */
function eventsOf(published: { id: string; type: string; payload: unknown }[]): [string, string][] {
  return published.flatMap((m) => eventsOfGroup(m)).map((e) => [e.type, (e.payload as { recordId: string }).recordId]);
}

const A = callerIn('ws_a');
const lead = (email: string, extra: Record<string, unknown> = {}) => ({ id: '', body: { firstName: 'Lin', email, ...extra } });

describe('batch writes', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
  });
  afterEach(() => h.close());

  it('gives each record the events and activity of a single write, in one grouped message, and an unchanged one none', async () => {
    const created = await h.service.recordBatches.write(A, {
      kind: 'lead',
      operation: 'upsert',
      matchOn: 'email',
      atomic: false,
      records: [lead('a@x.io'), lead('b@x.io')],
    });
    expect(created.results.map((r) => r.status)).toEqual(['created', 'created']);
    await eventually(() => h.published.length === 1);
    expect(eventsOf(h.published)).toEqual([
      ['records.lead_created.v1', created.results[0]!.id],
      ['records.lead_created.v1', created.results[1]!.id],
    ]);
    h.published.length = 0;

    const changed = await h.service.recordBatches.write(A, {
      kind: 'lead',
      operation: 'upsert',
      matchOn: 'email',
      atomic: false,
      records: [lead('A@x.io', { status: 'qualified' }), lead('b@x.io')],
    });
    expect(changed.results.map((r) => r.status)).toEqual(['updated', 'unchanged']);
    await eventually(() => h.published.length === 1);
    await h.relay.sweep();
    expect(h.published.map((m) => m.type)).toEqual([RECORDS_WRITTEN]);
    expect(eventsOf(h.published)).toEqual([
      ['records.lead_status_changed.v1', created.results[0]!.id],
      ['records.record_updated.v1', created.results[0]!.id],
    ]);
    const logged = await h.store.forWorkspace('ws_a').find(activities, {});
    expect(logged.map((a) => a.action).sort()).toEqual(['created', 'created', 'updated']);
  });

  it('splits a batch whose events outgrow one message into groups, every event kept in order', async () => {
    const long = 'x'.repeat(9_000);
    const records = Array.from({ length: 300 }, (_, i) => lead(`big${i}@x.io`, { notes: long }));
    const written = await h.service.recordBatches.write(A, { kind: 'lead', operation: 'create', matchOn: 'email', atomic: false, records });
    expect(written.results.every((r) => r.status === 'created')).toBe(true);
    await eventually(() => eventsOf(h.published).length === 300);
    await h.relay.sweep();
    expect(h.published.length).toBeGreaterThan(1);
    for (const message of h.published) expect(JSON.stringify(message.payload).length).toBeLessThan(RECORD_EVENT_GROUP.maxJsonLength * 1.1);
    expect(eventsOf(h.published).map(([, id]) => id)).toEqual(written.results.map((r) => r.id));
  });

  it('marks a group of 64 KB or more as heavy in the outbox, so the relay reads few of them at a time, and a small one not', async () => {
    await h.relay.stop();
    const long = 'x'.repeat(9_000);
    const write = (records: ReturnType<typeof lead>[]) =>
      h.service.recordBatches.write(A, { kind: 'lead', operation: 'create', matchOn: 'email', atomic: false, records });
    await write(Array.from({ length: 10 }, (_, i) => lead(`heavy${i}@x.io`, { notes: long })));
    await write([lead('small1@x.io'), lead('small2@x.io')]);
    const waiting = await h.store.forWorkspace('ws_a').find(outbox, { sort: [{ field: 'createdAt', direction: 'asc' }] });
    expect(waiting.map((event) => [event.type, event.heavy ?? false])).toEqual([
      [RECORDS_WRITTEN, true],
      [RECORDS_WRITTEN, false],
    ]);
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
