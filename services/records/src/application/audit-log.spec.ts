import { DomainError } from '@crm/observability';
import { auditEntries, auditGroupEntries, auditStaged } from '../store/audit-collections';
import { contacts } from '../store/collections';
import { callerIn, recordsHarness, type Harness } from '../testing/records-factory';
import { GROUP_BYTES_MAX } from '../domain/audit-entry';
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
    // Staged or moved, nothing but the creation's entry is stored.
    const stored = [...(await h.store.forWorkspace('ws_a').find(auditEntries)), ...(await h.store.forWorkspace('ws_a').find(auditStaged))];
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

  describe('an import batch’s entries, stored as one group', () => {
    const importRows = (count: number, from = 0) =>
      Array.from({ length: count }, (_, i) => ({
        row: i + 1,
        body: { firstName: `F${from + i}`, lastName: 'Imported', email: `i${from + i}@x.io` },
      }));
    const walk = async (filters: Parameters<Harness['service']['auditLog']['list']>[1], limit: number) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await h.service.auditLog.list(A, filters, { limit, cursor });
        seen.push(...page.items.map((e) => e.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return seen;
    };

    it('stores one row for the batch and lists, counts and pages its entries as entries', async () => {
      await create(as(A, 'req-before'));
      const { created } = await h.service.contactBatches.create(as(A, 'req-import'), { idempotencyKey: 'k1', rows: importRows(7) });
      await create(as(A, 'req-after'));
      await h.service.context.auditStaging.move('ws_a');
      const stored = await h.store.forWorkspace('ws_a').find(auditEntries);
      expect(stored).toHaveLength(3);

      const all = await h.service.auditLog.list(A, {}, { limit: 100 });
      expect(all.total).toBe(9);
      expect(all.items.map((e) => e.requestId)).toEqual(['req-after', ...Array(7).fill('req-import'), 'req-before']);
      const imported = all.items.filter((e) => e.action === 'imported');
      expect(new Set(imported.map((e) => e.recordId))).toEqual(new Set(created.map((c) => c.contactId)));
      expect(imported.map((e) => e.recordId)).toEqual(created.map((c) => c.contactId).reverse());
      expect(imported[6]!.changes).toMatchObject({ firstName: { from: null, to: 'F0' }, email: { from: null, to: 'i0@x.io' } });
      expect(JSON.stringify(imported)).not.toMatch(/auditGroup|importedIn/);

      // Every page size walks each entry once, in order, with cursors that land inside the group.
      for (const limit of [1, 2, 3, 4, 8, 9]) expect(await walk({}, limit)).toEqual(all.items.map((e) => e.id));
      // Offsets give the same pages.
      for (const offset of [0, 1, 3, 7, 8, 9]) {
        const page = await h.service.auditLog.list(A, {}, { offset, limit: 3 });
        expect(page.items.map((e) => e.id)).toEqual(all.items.slice(offset, offset + 3).map((e) => e.id));
        expect(page.total).toBe(9);
      }
      const byAction = await h.service.auditLog.list(A, { action: 'imported' }, { limit: 2 });
      expect(byAction.total).toBe(7);
      expect(await walk({ action: 'imported' }, 2)).toEqual(imported.map((e) => e.id));
      expect((await h.service.auditLog.list(A, { requestId: 'req-import' }, {})).total).toBe(7);
      expect((await h.service.auditLog.list(A, { recordKind: 'lead' }, {})).items).toEqual([]);
      expect((await h.service.auditLog.list(callerIn('ws_b', { id: 'usr_bob', type: 'user' }), {}, {})).items).toEqual([]);
    });

    it('starts another group before one would pass GROUP_BYTES_MAX of changes', async () => {
      const { writer, repo } = h.service.context;
      const half = 'x'.repeat(GROUP_BYTES_MAX / 2 + 1);
      const records = [1, 2, 3].map((n) => ({ id: `cnt_big${n}`, notes: half }) as { id: string; notes: string; auditGroup?: string });
      await repo.commit(
        'ws_a',
        writer.auditCreations(writer.changes(), as(A, 'req-big'), 'imported', 'contact', records, '2026-11-30T00:00:00.000Z'),
      );
      expect(new Set(records.map((r) => r.auditGroup)).size).toBe(3);
      const page = await h.service.auditLog.list(A, { requestId: 'req-big' }, {});
      expect(page.total).toBe(3);
      expect(page.items.map((e) => e.recordId).sort()).toEqual(['cnt_big1', 'cnt_big2', 'cnt_big3']);
    });

    it('writes no activity for an imported contact: its audit entry and import job say where it came from', async () => {
      const rows = importRows(3);
      const { created } = await h.service.contactBatches.create(as(A, 'req-import'), { idempotencyKey: 'k1', rows, importJobId: 'job_1' });
      const id = created[0]!.contactId;
      expect((await h.service.related.listActivities(A, id)).items).toEqual([]);
      expect((await h.service.related.listActivities(A)).total).toBe(0);
      expect((await h.service.contacts.get(A, id)).importJobId).toBe('job_1');
      expect((await h.service.auditLog.history(A, 'contact', id, {})).items).toMatchObject([
        { action: 'imported', requestId: 'req-import' },
      ]);
      // A contact created one at a time keeps its `created` activity.
      const one = await create(as(A, 'req-one'));
      expect((await h.service.related.listActivities(A, one.id)).items).toMatchObject([{ action: 'created', recordId: one.id }]);
    });

    it('puts the grouped entry in a record’s history, and keeps it there once the record is deleted', async () => {
      const { created } = await h.service.contactBatches.create(as(A, 'req-import'), { idempotencyKey: 'k1', rows: importRows(3) });
      const id = created[1]!.contactId;
      await h.service.contacts.update(as(A, 'req-1'), id, { body: { title: 'One' } });
      await h.service.contacts.update(as(A, 'req-2'), id, { body: { title: 'Two' } });
      const actions = async () => (await h.service.auditLog.history(A, 'contact', id, {})).items.map((e) => e.requestId);
      expect(await actions()).toEqual(['req-2', 'req-1', 'req-import']);
      const [imported] = (await h.service.auditLog.history(A, 'contact', id, { offset: 2, limit: 1 })).items;
      expect(imported).toMatchObject({ action: 'imported', recordId: id, changes: { firstName: { from: null, to: 'F1' } } });
      expect((await h.service.auditLog.list(A, { recordId: id, action: 'imported' }, {})).items).toEqual([imported]);
      expect((await h.service.auditLog.list(A, { recordId: id, action: 'updated' }, {})).total).toBe(2);

      await h.service.contacts.delete(as(A, 'req-del'), id);
      expect(await actions()).toEqual(['req-del', 'req-2', 'req-1', 'req-import']);
      const byCursor: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await h.service.auditLog.history(A, 'contact', id, { limit: 1, cursor });
        byCursor.push(...page.items.map((e) => e.requestId));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(byCursor).toEqual(['req-del', 'req-2', 'req-1', 'req-import']);
      for (const offset of [0, 1, 2, 3]) {
        const page = await h.service.auditLog.history(A, 'contact', id, { offset, limit: 2 });
        expect(page.items.map((e) => e.requestId)).toEqual(byCursor.slice(offset, offset + 2));
        expect(page.total).toBe(4);
      }
    });

    it('exports and blanks an imported person’s grouped entry, leaving the batch’s other entries as they were', async () => {
      const { created } = await h.service.contactBatches.create(as(A, 'req-import'), { idempotencyKey: 'k1', rows: importRows(3) });
      const person = new PersonData(h.service.context, h.service.auditLog);
      const exported = await person.export(A, 'i1@x.io');
      expect(exported.auditEntries.map((e) => [e.action, e.recordId])).toEqual([['imported', created[1]!.contactId]]);

      const { counts } = await person.erase(as(A, 'req-erase'), 'i1@x.io');
      expect(counts.auditEntries).toBe(1);
      const history = await h.service.auditLog.history(A, 'contact', created[1]!.contactId, {});
      expect(history.items.map((e) => e.action)).toEqual(['erased', 'imported']);
      expect(history.items[1]!.changes.email).toEqual({ from: null, to: '[erased]' });
      const stored = await h.store.forWorkspace('ws_a').find(auditGroupEntries);
      expect(JSON.stringify(stored)).not.toMatch(/i1@x\.io|"F1"/);
      expect(JSON.stringify(stored)).toMatch(/i0@x\.io/);
      const others = (await h.service.auditLog.list(A, { action: 'imported' }, {})).items;
      expect(others.map((e) => e.changes.email)).toEqual([
        { from: null, to: 'i2@x.io' },
        { from: null, to: '[erased]' },
        { from: null, to: 'i0@x.io' },
      ]);
      // A second erasure in the same group keeps the first one's blanking.
      await person.erase(as(A, 'req-erase-2'), 'i2@x.io');
      const after = (await h.service.auditLog.list(A, { action: 'imported' }, {})).items;
      expect(after.map((e) => e.changes.email)).toEqual([
        { from: null, to: '[erased]' },
        { from: null, to: '[erased]' },
        { from: null, to: 'i0@x.io' },
      ]);
    });
  });
});
