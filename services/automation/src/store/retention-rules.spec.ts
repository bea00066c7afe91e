import { createLogger } from '@crm/observability';
import { isoDaysBefore, openStore, purgeQuery, sqliteQueryPlan, RetentionSweeper, type DocumentStore } from '@crm/store';
import type { EmailDocument, EnrollmentDocument, NotificationDocument } from '../domain/model';
import { automationCollections, emails, enrollments, notifications } from './collections';
import { automationRetentionRules } from './retention-rules';

const WS = 'ws_retention';
const NOW = Date.parse('2026-06-01T00:00:00Z');
const days = { EMAIL_RETENTION_DAYS: 90, NOTIFICATION_RETENTION_DAYS: 90, RUN_RETENTION_DAYS: 90, WEBHOOK_DELIVERY_RETENTION_DAYS: 30 };

function email(id: string, status: EmailDocument['status'], ageDays: number): EmailDocument {
  const at = isoDaysBefore(NOW, ageDays);
  return {
    id,
    workspaceId: WS,
    to: 'a@example.com',
    subject: 's',
    body: 'b',
    mode: 'template',
    status,
    relatedTo: 'ld_1',
    ruleId: 'rul_1',
    executionLogId: 'log_1',
    error: null,
    createdAt: at,
  };
}

function notification(id: string, ageDays: number): NotificationDocument {
  return {
    id,
    workspaceId: WS,
    recipient: 'usr_1',
    message: 'm',
    relatedTo: 'ld_1',
    ruleId: 'rul_1',
    executionLogId: 'log_1',
    createdAt: isoDaysBefore(NOW, ageDays),
  };
}

function run(id: string, status: EnrollmentDocument['status'], endedDaysAgo: number | null): EnrollmentDocument {
  return {
    id,
    workspaceId: WS,
    ruleId: 'rul_1',
    ruleName: 'R',
    enrolledRecordType: 'lead',
    enrolledRecordId: `ld_${id}`,
    status,
    activeKey: status === 'in_progress' ? `rul_1:ld_${id}` : null,
    sourceEventId: `evt_${id}`,
    steps: [],
    exitConditions: [],
    stepIndex: 0,
    dueAt: null,
    claimUntil: null,
    claimToken: null,
    lastClaim: null,
    attempts: 0,
    assignment: null,
    completedSteps: 0,
    totalSteps: 1,
    stepResults: [],
    reason: null,
    startedAt: isoDaysBefore(NOW, 200),
    completedAt: endedDaysAgo === null ? null : isoDaysBefore(NOW, endedDaysAgo),
    correlationId: 'c',
  };
}

describe('automation retention', () => {
  let store: DocumentStore;
  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
  });
  afterEach(() => store.close());

  it('reads the purge of every rule off an index across workspaces, oldest first, without a sort or a scan', () => {
    const plans = automationRetentionRules(days).map((rule) => [
      rule.collection.name,
      sqliteQueryPlan(rule.collection, purgeQuery(rule.expired(NOW), 500)),
    ]);
    for (const [name, plan] of plans)
      expect([name, plan]).toEqual([name, expect.stringMatching(/^SEARCH \S+ USING INDEX \S+ \([^)]*<\?\)$/)]);
  });

  it('deletes sent emails, notifications and finished runs past their retention, and keeps the rest', async () => {
    const ws = store.forWorkspace(WS);
    for (const doc of [
      email('eml_old_sent', 'sent', 91),
      email('eml_old_unknown', 'unknown', 91),
      email('eml_old_queued', 'queued', 91),
      email('eml_new', 'sent', 89),
    ]) {
      await ws.insert(emails, doc);
    }
    for (const doc of [notification('ntf_old', 91), notification('ntf_new', 89)]) await ws.insert(notifications, doc);
    for (const doc of [
      run('old_done', 'completed', 91),
      run('old_cancelled', 'cancelled', 120),
      run('running', 'in_progress', null),
      run('new_done', 'failed', 89),
    ]) {
      await ws.insert(enrollments, doc);
    }
    const sweeper = new RetentionSweeper(store, automationRetentionRules(days), createLogger('t', { level: 'silent' }), {
      intervalMs: 1000,
      batchSize: 100,
    });

    expect(await sweeper.sweep(NOW)).toEqual({ emails: 2, notifications: 1, enrollments: 2, webhook_deliveries: 0 });
    const ids = async (c: typeof emails | typeof notifications | typeof enrollments) =>
      (await ws.find(c as typeof emails)).map((d) => d.id).sort();
    expect(await ids(emails)).toEqual(['eml_new', 'eml_old_queued']);
    expect(await ids(notifications)).toEqual(['ntf_new']);
    expect(await ids(enrollments)).toEqual(['new_done', 'running']);
  });
});
