import { createLogger } from '@crm/observability';
import { isoDaysBefore, openStore, purgeQuery, sqliteQueryPlan, RetentionSweeper, type DocumentStore } from '@crm/store';
import { GROUP_RECORD_ID, type AuditEntryDocument } from '../domain/audit-entry';
import { auditEntries, auditGroupEntries } from './audit-collections';
import { feedEvents, feedIntake } from './change-feed-collections';
import { batchResults, recordsCollections, type BatchResultDocument } from './collections';
import { recordsRetentionRules } from './retention-rules';

const NOW = Date.parse('2026-06-01T00:00:00Z');

function answer(id: string, workspaceId: string, ageDays: number): BatchResultDocument {
  return {
    id,
    workspaceId,
    idempotencyKey: id,
    result: { created: [], duplicates: [], errors: [] },
    createdAt: isoDaysBefore(NOW, ageDays),
  };
}

describe('processed batch retention', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: recordsCollections });
  });
  afterEach(() => store.close());

  it('reads the purge of every rule off an index across workspaces, oldest first, without a sort or a scan', () => {
    const plans = recordsRetentionRules(7).map((rule) => [
      rule.collection.name,
      sqliteQueryPlan(rule.collection, purgeQuery(rule.expired(NOW), 500)),
    ]);
    for (const [name, plan] of plans)
      expect([name, plan]).toEqual([name, expect.stringMatching(/^SEARCH \S+ USING INDEX \S+ \([^)]*<\?\)$/)]);
  });

  it('deletes batch answers older than the retention in every workspace, a bounded batch per pass', async () => {
    for (const ws of ['ws_a', 'ws_b']) {
      await store.forWorkspace(ws).insert(batchResults, answer(`${ws}_old1`, ws, 8));
      await store.forWorkspace(ws).insert(batchResults, answer(`${ws}_old2`, ws, 30));
      await store.forWorkspace(ws).insert(batchResults, answer(`${ws}_new`, ws, 6));
    }
    const sweeper = new RetentionSweeper(store, recordsRetentionRules(7), createLogger('t', { level: 'silent' }), {
      intervalMs: 1000,
      batchSize: 3,
    });

    expect(await sweeper.sweep(NOW)).toEqual({
      audit_entries: 0,
      audit_group_entries: 0,
      batch_results: 3,
      feed_events: 0,
      feed_intake: 0,
    });
    expect(await sweeper.sweep(NOW)).toEqual({
      audit_entries: 0,
      audit_group_entries: 0,
      batch_results: 1,
      feed_events: 0,
      feed_intake: 0,
    });
    const left = [...(await store.forWorkspace('ws_a').find(batchResults)), ...(await store.forWorkspace('ws_b').find(batchResults))];
    expect(left.map((d) => d.id).sort()).toEqual(['ws_a_new', 'ws_b_new']);
  });
});

describe('change feed retention', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: recordsCollections });
  });
  afterEach(() => store.close());

  it('deletes feed events and intake ids older than 7 days in every workspace, and keeps the last 7 days', async () => {
    const ages = { old: 7.01, kept: 6.99 };
    for (const ws of ['ws_a', 'ws_b'])
      for (const [name, age] of Object.entries(ages)) {
        const at = isoDaysBefore(NOW, age);
        await store.forWorkspace(ws).insert(feedEvents, {
          id: `${ws}_${name}`,
          workspaceId: ws,
          seq: age > 7 ? 1 : 2,
          type: 'lead.created',
          envelope: { id: `evt_${name}`, type: 'lead.created', occurredAt: at, workspaceId: ws, data: {} },
          fedAt: at,
        });
        await store.forWorkspace(ws).insert(feedIntake, { id: `${ws}_${name}`, workspaceId: ws, receivedAt: at });
      }
    const sweeper = new RetentionSweeper(store, recordsRetentionRules(7), createLogger('t', { level: 'silent' }), {
      intervalMs: 1000,
      batchSize: 10,
    });

    expect(await sweeper.sweep(NOW)).toEqual({
      audit_entries: 0,
      audit_group_entries: 0,
      batch_results: 0,
      feed_events: 2,
      feed_intake: 2,
    });
    const left = [...(await store.forWorkspace('ws_a').find(feedEvents)), ...(await store.forWorkspace('ws_b').find(feedEvents))];
    expect(left.map((d) => d.id).sort()).toEqual(['ws_a_kept', 'ws_b_kept']);
    expect((await store.forWorkspace('ws_a').find(feedIntake)).map((d) => d.id)).toEqual(['ws_a_kept']);
  });
});

describe('audit log retention', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: recordsCollections });
  });
  afterEach(() => store.close());

  const entry = (id: string, workspaceId: string, ageDays: number): AuditEntryDocument => ({
    id,
    workspaceId,
    occurredAt: isoDaysBefore(NOW, ageDays),
    action: 'updated',
    recordKind: 'contact',
    recordId: 'cnt_gone',
    actorType: 'user',
    actorId: 'usr_ada',
    requestId: 'req-1',
    changes: { title: { from: 'a', to: 'b' } },
  });

  it('deletes entries older than 365 days (the setting) in every workspace, whatever became of the record', async () => {
    for (const ws of ['ws_a', 'ws_b']) {
      await store.forWorkspace(ws).insert(auditEntries, entry(`${ws}_old`, ws, 365.01));
      await store.forWorkspace(ws).insert(auditEntries, entry(`${ws}_kept`, ws, 364.99));
    }
    const sweeper = new RetentionSweeper(store, recordsRetentionRules(7), createLogger('t', { level: 'silent' }), {
      intervalMs: 1000,
      batchSize: 10,
    });
    expect(await sweeper.sweep(NOW)).toEqual({
      audit_entries: 2,
      audit_group_entries: 0,
      batch_results: 0,
      feed_events: 0,
      feed_intake: 0,
    });
    const left = [...(await store.forWorkspace('ws_a').find(auditEntries)), ...(await store.forWorkspace('ws_b').find(auditEntries))];
    expect(left.map((d) => d.id).sort()).toEqual(['ws_a_kept', 'ws_b_kept']);
    // The setting moves the cut-off.
    const rule = recordsRetentionRules(7, 30).find((r) => r.collection === auditEntries)!;
    expect(rule.expired(NOW)).toEqual([{ field: 'occurredAt', op: 'lt', value: isoDaysBefore(NOW, 30) }]);
  });

  it('deletes an old group’s row and its entries together, and keeps a newer group whole', async () => {
    const ws = store.forWorkspace('ws_a');
    for (const [id, age] of [
      ['aud_old', 365.01],
      ['aud_new', 364.99],
    ] as const) {
      const { changes: _changes, ...row } = entry(id, 'ws_a', age);
      await ws.insert(auditEntries, { ...row, action: 'imported', recordId: GROUP_RECORD_ID, extra: 1 });
      await ws.insert(auditGroupEntries, {
        id,
        workspaceId: 'ws_a',
        occurredAt: row.occurredAt,
        entries: [
          { recordId: 'cnt_1', values: {} },
          { recordId: 'cnt_2', values: {} },
        ],
        revision: 0,
      });
    }
    const sweeper = new RetentionSweeper(store, recordsRetentionRules(7), createLogger('t', { level: 'silent' }), {
      intervalMs: 1000,
      batchSize: 10,
    });
    expect(await sweeper.sweep(NOW)).toMatchObject({ audit_entries: 1, audit_group_entries: 1 });
    expect((await ws.find(auditEntries)).map((d) => d.id)).toEqual(['aud_new']);
    expect((await ws.find(auditGroupEntries)).map((d) => d.id)).toEqual(['aud_new']);
  });
});
