import type { DocumentStore } from '@crm/store';
import type { AuditEntryDocument } from '../domain/audit-entry';
import { callerIn, eventually, logger, openTestStore, recordsHarness, type Harness } from '../testing/records-factory';
import { auditEntries, auditStaged } from './audit-collections';
import { AuditStaging } from './audit-staging';

function entry(n: number, workspaceId = 'ws_a'): AuditEntryDocument {
  return {
    id: `aud_${workspaceId}_${String(n).padStart(4, '0')}`,
    workspaceId,
    occurredAt: new Date(Date.UTC(2026, 10, 30, 0, 0, 0, n)).toISOString(),
    action: 'updated',
    recordKind: 'contact',
    recordId: `cnt_${n}`,
    actorType: 'user',
    actorId: 'usr_ada',
    requestId: `req-${n}`,
    changes: { title: { from: null, to: `T${n}` } },
  };
}

async function stage(store: DocumentStore, entries: AuditEntryDocument[]): Promise<void> {
  for (const workspaceId of new Set(entries.map((e) => e.workspaceId)))
    await store
      .forWorkspace(workspaceId)
      .commit(
        entries
          .filter((e) => e.workspaceId === workspaceId)
          .map((document) => ({ kind: 'insert' as const, collection: auditStaged, document: { ...document } })),
      );
}

const idsIn = async (store: DocumentStore, workspaceId: string) => ({
  log: (await store.forWorkspace(workspaceId).find(auditEntries)).map((e) => e.id).sort(),
  staged: (await store.forWorkspace(workspaceId).find(auditStaged)).map((e) => e.id).sort(),
});

describe('audit staging', () => {
  let store: DocumentStore;
  const stagings: AuditStaging[] = [];
  const staging = (options = {}) => {
    const made = new AuditStaging(store, logger, options);
    stagings.push(made);
    return made;
  };
  beforeEach(async () => {
    store = await openTestStore();
  });
  afterEach(async () => {
    await Promise.all(stagings.splice(0).map((s) => s.stop()));
    await store.close();
  });

  it('moves every waiting entry of the workspace into the log in one go, and only that workspace’s', async () => {
    const entries = Array.from({ length: 1_203 }, (_, n) => entry(n));
    await stage(store, [...entries, entry(1, 'ws_b')]);
    await staging().move('ws_a');
    expect(await idsIn(store, 'ws_a')).toEqual({ log: entries.map((e) => e.id).sort(), staged: [] });
    expect(await idsIn(store, 'ws_b')).toEqual({ log: [], staged: [entry(1, 'ws_b').id] });
  });

  it('moves once enough entries wait, or once the first has waited its time', async () => {
    const soon = staging({ moveAt: 3, maxWaitMs: 60_000 });
    await stage(store, [entry(1), entry(2)]);
    soon.staged('ws_a', 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await idsIn(store, 'ws_a')).log).toEqual([]);
    await stage(store, [entry(3)]);
    soon.staged('ws_a', 1);
    await eventually(async () => (await idsIn(store, 'ws_a')).log.length === 3);

    const late = staging({ moveAt: 1_000, maxWaitMs: 30 });
    await stage(store, [entry(4)]);
    late.staged('ws_a', 1);
    await eventually(async () => (await idsIn(store, 'ws_a')).log.length === 4);
    expect((await idsIn(store, 'ws_a')).staged).toEqual([]);
  });

  it('puts each entry in the log once when two replicas move the same workspace at once', async () => {
    const entries = Array.from({ length: 700 }, (_, n) => entry(n));
    await stage(store, entries);
    const [a, b] = [staging(), staging()];
    await Promise.all([a.move('ws_a'), b.move('ws_a'), a.move('ws_a'), b.move('ws_a')]);
    expect(await idsIn(store, 'ws_a')).toEqual({ log: entries.map((e) => e.id).sort(), staged: [] });
  });

  it('moves at start what a stopped process left waiting, in every workspace', async () => {
    const left = [...Array.from({ length: 600 }, (_, n) => entry(n)), entry(1, 'ws_b'), entry(2, 'ws_c')];
    await stage(store, left);
    await expect(staging().moveLeftovers()).resolves.toBe(602);
    for (const ws of ['ws_a', 'ws_b', 'ws_c']) expect((await idsIn(store, ws)).staged).toEqual([]);
    expect((await idsIn(store, 'ws_a')).log).toHaveLength(600);
  });
});

describe('audit staging in the records service', () => {
  let h: Harness;
  const A = callerIn('ws_a');
  beforeEach(async () => {
    h = await recordsHarness();
  });
  afterEach(() => h.close());

  it('stages a single write’s entry in its commit, and a read of the log right after finds it', async () => {
    const contact = await h.service.contacts.create(A, { body: { firstName: 'Ada', email: 'ada@example.com' } });
    await h.service.contacts.update(A, contact.id, { body: { title: 'Countess' } });
    expect(await idsIn(h.store, 'ws_a')).toMatchObject({ log: [], staged: [expect.any(String), expect.any(String)] });
    const history = await h.service.auditLog.history(A, 'contact', contact.id, {});
    expect(history.items.map((e) => e.action)).toEqual(['updated', 'created']);
    expect((await idsIn(h.store, 'ws_a')).staged).toEqual([]);
  });

  it('writes a batch’s entries straight into the log', async () => {
    await h.service.recordBatches.write(A, {
      kind: 'lead',
      operation: 'create',
      matchOn: 'email',
      atomic: false,
      records: [{ id: '', body: { lastName: 'L', email: 'a@x.io' } }],
    });
    const written = await h.service.recordBatches.write(A, {
      kind: 'lead',
      operation: 'upsert',
      matchOn: 'email',
      atomic: false,
      records: [{ id: '', body: { lastName: 'L', email: 'a@x.io', company: 'Boss & Co' } }],
    });
    expect(written.results[0]).toMatchObject({ status: 'updated', errors: null });
    const { log, staged } = await idsIn(h.store, 'ws_a');
    expect(staged).toEqual([]);
    expect(log.length).toBeGreaterThanOrEqual(2);
  });
});
