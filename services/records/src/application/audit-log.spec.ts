import { DomainError } from '@crm/observability';
import { auditEntries } from '../store/audit-collections';
import { contacts } from '../store/collections';
import { callerIn, recordsHarness, type Harness } from '../testing/records-factory';
import { VALUES_PER_COMMIT } from './custom-fields-service';
import { PersonData } from './person-data';
import type { Caller } from './views';

const A = callerIn('ws_a');
const KEY: Caller = { workspaceId: 'ws_a', actor: { id: 'usr_system', type: 'api_key' }, apiKeyId: 'key_1', correlationId: 'req-key' };
const AUTOMATION: Caller = { workspaceId: 'ws_a', actor: { id: 'system', type: 'system' }, correlationId: 'req-auto', cause: 'rule_1' };

async function kindOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error.kind;
    throw error;
  }
  return 'ok';
}

describe('audit log', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await recordsHarness();
  });
  afterEach(() => h.close());

  const as = (caller: Caller, correlationId: string): Caller => ({ ...caller, correlationId });
  const create = (caller = A) =>
    h.service.contacts.create(caller, { body: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' } });

  it('writes an entry per change with its actor, request id and changed fields; a record’s history newest first', async () => {
    const contact = await create(as(A, 'req-create'));
    await h.service.contacts.update(as(KEY, 'req-patch'), contact.id, { body: { title: 'Countess' } });
    await h.service.contacts.update(as(AUTOMATION, 'req-auto'), contact.id, { body: { lastName: 'Byron' } });
    await h.service.contacts.delete(as(A, 'req-delete'), contact.id);

    const history = await h.service.auditLog.history(A, 'contact', contact.id, {});
    expect(history.items.map((e) => [e.action, e.requestId, e.actor])).toEqual([
      ['deleted', 'req-delete', { type: 'user', id: 'usr_ada', name: 'Ada Lovelace' }],
      ['updated', 'req-auto', { type: 'system', id: 'system', name: '' }],
      ['updated', 'req-patch', { type: 'apiKey', id: 'key_1', name: '' }],
      ['created', 'req-create', { type: 'user', id: 'usr_ada', name: 'Ada Lovelace' }],
    ]);
    expect(history.items[1]!.changes).toEqual({ lastName: { from: 'Lovelace', to: 'Byron' } });
    expect(history.items[2]!.changes).toEqual({ title: { from: '', to: 'Countess' } });
    expect(history.items[3]!.changes).toMatchObject({ email: { from: null, to: 'ada@example.com' } });
    // The entries outlive the record; an id that never existed is not found.
    expect(await kindOf(h.service.auditLog.history(A, 'contact', 'cnt_never', {}))).toBe('not_found');
    expect(await kindOf(h.service.auditLog.history(A, 'lead', contact.id, {}))).toBe('not_found');
    expect(await kindOf(h.service.auditLog.history(callerIn('ws_b', { id: 'usr_bob', type: 'user' }), 'contact', contact.id, {}))).toBe(
      'not_found',
    );
  });

  it('filters the workspace’s log and pages it by cursor', async () => {
    for (let i = 0; i < 3; i++) await create(as(A, `req-${i}`));
    await create(as(KEY, 'req-key'));
    expect((await h.service.auditLog.list(A, { actorType: 'apiKey' }, {})).items.map((e) => e.requestId)).toEqual(['req-key']);
    expect((await h.service.auditLog.list(A, { requestId: 'req-1' }, {})).items).toHaveLength(1);
    expect((await h.service.auditLog.list(A, { action: 'deleted' }, {})).items).toEqual([]);
    const first = await h.service.auditLog.list(A, {}, { limit: 3 });
    expect(first.total).toBe(4);
    const rest = await h.service.auditLog.list(A, {}, { limit: 3, cursor: first.nextCursor! });
    expect([...first.items, ...rest.items].map((e) => e.requestId)).toEqual(['req-key', 'req-2', 'req-1', 'req-0']);
    expect((await h.service.auditLog.list(callerIn('ws_b', { id: 'usr_bob', type: 'user' }), {}, {})).items).toEqual([]);
  });

  it("writes an entry for each record whose value a field's deletion removes, by the admin who deleted it", async () => {
    const field = await h.service.customFieldDefinitions.create(A, { body: { kind: 'contact', key: 'tier', label: 'Tier', type: 'text' } });
    const holders = [];
    for (let i = 0; i < 3; i++)
      holders.push(
        await create(A).then((c) => h.service.contacts.update(A, c.id, { body: { email: `a${i}@x.io`, customFields: { tier: `t${i}` } } })),
      );
    const without = await h.service.contacts.create(A, { body: { firstName: 'No', email: 'none@x.io' } });
    await h.service.customFieldDefinitions.delete(as(A, 'req-drop'), field.id);

    const dropped = await h.service.auditLog.list(A, { requestId: 'req-drop' }, {});
    expect(dropped.items.map((e) => [e.action, e.recordId, e.changes]).sort()).toEqual(
      holders.map((c, i) => ['updated', c.id, { 'customFields.tier': { from: `t${i}`, to: null } }]).sort(),
    );
    expect(dropped.items[0]!.actor).toEqual({ type: 'user', id: 'usr_ada', name: 'Ada Lovelace' });
    expect((await h.service.auditLog.history(A, 'contact', without.id, {})).items.map((e) => e.action)).toEqual(['created']);
    expect((await h.service.contacts.get(A, holders[0]!.id)).customFields).toEqual({});
  });

  it('deletes a field many records hold a page of values per commit, the rest after the answer, each value audited once', async () => {
    const field = await h.service.customFieldDefinitions.create(A, { body: { kind: 'contact', key: 'tier', label: 'Tier', type: 'text' } });
    const held = VALUES_PER_COMMIT * 2 + 100;
    const rows = Array.from({ length: held }, (_, i) => ({
      row: i + 1,
      body: { lastName: `L${i}`, email: `p${i}@x.io`, customFields: { tier: `t${i}` } },
    }));
    await h.service.contactBatches.create(A, { idempotencyKey: 'rows', rows });
    const dropped = () => h.store.forWorkspace('ws_a').count(auditEntries, [{ field: 'requestId', op: 'eq', value: 'req-drop' }]);

    await h.service.customFieldDefinitions.delete(as(A, 'req-drop'), field.id);
    // Answered after the first page: the field is gone for every reader while the rest of its values go.
    expect(await dropped()).toBe(VALUES_PER_COMMIT);
    expect(await kindOf(h.service.customFieldDefinitions.get(A, field.id))).toBe('not_found');
    expect((await h.service.contacts.list(A, { limit: 1 })).items[0]!.customFields).toEqual({});
    expect(
      await kindOf(h.service.customFieldDefinitions.create(A, { body: { kind: 'contact', key: 'tier', label: 'T', type: 'text' } })),
    ).toBe('validation_failed');

    await h.service.customFieldDefinitions.settled();
    expect(await dropped()).toBe(held);
    expect(await h.store.forWorkspace('ws_a').count(contacts, [{ field: 'customFields.tier', op: 'exists', value: true }])).toBe(0);
    await h.service.customFieldDefinitions.create(A, { body: { kind: 'contact', key: 'tier', label: 'Tier', type: 'text' } });
  });

  it('finishes at start a deletion a stopped replica left under way, under the deleting caller and request', async () => {
    const field = await h.service.customFieldDefinitions.create(A, { body: { kind: 'contact', key: 'tier', label: 'Tier', type: 'text' } });
    const holder = await h.service.contacts.create(A, { body: { lastName: 'Held', email: 'held@x.io', customFields: { tier: 'gold' } } });
    // What a replica stopped right after the answer leaves behind: the field hidden, its values still there.
    await h.service.context.customFields.markDeleting('ws_a', field, {
      at: '2026-11-29T00:00:00Z',
      startedMs: Date.now(),
      caller: as(KEY, 'req-gone'),
    });
    expect((await h.service.customFieldDefinitions.atStart()).resumed).toBe(1);
    const history = await h.service.auditLog.history(A, 'contact', holder.id, {});
    expect(history.items.map((e) => e.action).sort()).toEqual(['created', 'updated']);
    expect(history.items.find((e) => e.action === 'updated')).toMatchObject({
      requestId: 'req-gone',
      actor: { type: 'apiKey', id: 'key_1' },
      changes: { 'customFields.tier': { from: 'gold', to: null } },
    });
    expect((await h.service.customFieldDefinitions.atStart()).resumed).toBe(0);
  });

  it('writes nothing for a change that does not commit', async () => {
    const contact = await create(as(A, 'req-create'));
    expect(await kindOf(h.service.contacts.update(as(A, 'req-stale'), contact.id, { body: { title: 'x' }, expectedVersion: 7 }))).toBe(
      'precondition_failed',
    );
    expect(await kindOf(h.service.contacts.create(as(A, 'req-bad'), { body: { email: 'not-an-email' } }))).toBe('validation_failed');
    const stored = await h.store.forWorkspace('ws_a').find(auditEntries);
    expect(stored.map((e) => e.requestId)).toEqual(['req-create']);
  });

  it('exports a person’s entries and blanks them in the erasure’s commit, ids kept, with an `erased` entry', async () => {
    const contact = await h.service.contacts.create(as(A, 'req-create'), {
      body: { firstName: 'Erin', lastName: 'Erasable', email: 'erin@example.com' },
    });
    await h.service.contacts.update(A, contact.id, { body: { phone: '555-0100' } });
    const person = new PersonData(h.service.context, h.service.auditLog);
    const exported = await person.export(A, 'ERIN@example.com');
    expect(exported.auditEntries.map((e) => e.action)).toEqual(['updated', 'created']);
    const ids = exported.auditEntries.map((e) => e.id);

    const { counts } = await person.erase(as(A, 'req-erase'), 'erin@example.com');
    expect(counts.auditEntries).toBe(2);
    expect(await h.store.forWorkspace('ws_a').find(contacts)).toEqual([]);
    const history = await h.service.auditLog.history(A, 'contact', contact.id, {});
    expect(history.items.map((e) => e.action)).toEqual(['erased', 'updated', 'created']);
    expect(history.items.slice(1).map((e) => e.id)).toEqual(ids);
    expect(history.items[1]!.changes).toEqual({ phone: { from: '[erased]', to: '[erased]' } });
    expect(history.items[2]!.changes.email).toEqual({ from: null, to: '[erased]' });
    expect(history.items[0]!.changes.email).toEqual({ from: '[erased]', to: null });
    expect(JSON.stringify(history.items)).not.toMatch(/erin@example\.com|Erasable|555-0100/);
  });
});
