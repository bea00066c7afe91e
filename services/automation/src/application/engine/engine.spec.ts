import type { BusMessage } from '@crm/bus';
import * as sweeperModule from './sweeper';
import type { RuleInput } from '../../domain/rule-validation';
import { OpenAiCompatibleWriter } from '../../adapters/ai-writer';
import { PLAN_QUOTAS, RECORDS_WRITTEN } from '@crm/vocabulary';
import { EmailQuota } from './email-quota';
import { emailQuotaDays, enrollments, emails, notifications, rules } from '../../store/collections';
import { buildEngine, eventually, type EngineHarness } from '../../testing/automation-factory';

const WS = 'ws_test';
const caller = { workspaceId: WS };
let seq = 0;

function lead(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  seq += 1;
  return {
    id: `ld_${seq}`,
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `ada${seq}@example.com`,
    company: 'Engines',
    status: 'new',
    leadScore: 50,
    assignedTo: 'usr_owner',
    emailOptOut: false,
    emailBounced: false,
    ...overrides,
  };
}

async function activeRule(engine: EngineHarness, input: Partial<RuleInput>): Promise<string> {
  const rule = await engine.rules.createRule(caller, { name: 'Rule', trigger: 'lead_created', ...input });
  await engine.rules.setActive(caller, rule.id, true);
  return rule.id;
}

function leadCreated(engine: EngineHarness, record: Record<string, unknown>, correlationId?: string, cause?: string) {
  engine.records.put(record);
  return engine.publishEvent(
    'records.lead_created.v1',
    { workspaceId: WS, recordType: 'lead', recordId: record.id, record },
    correlationId,
    cause,
  );
}

async function logsOf(engine: EngineHarness, ruleId: string) {
  return (await engine.rules.listLogs(caller, ruleId, { offset: 0, limit: 100 })).items;
}

async function settled(engine: EngineHarness, ruleId: string, count = 1) {
  return eventually(async () => {
    const logs = await logsOf(engine, ruleId);
    return logs.length >= count && logs.every((l) => l.status !== 'in_progress') ? logs : undefined;
  });
}

describe('the automation engine', () => {
  let engine: EngineHarness;
  beforeEach(async () => {
    engine = await buildEngine({ waitScale: 0.00001 });
    engine.directory.people.set('usr_owner', { id: 'usr_owner', firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' });
  });
  afterEach(() => engine.close());

  it('enrolls a matching lead and runs every step in order, filling placeholders', async () => {
    const ruleId = await activeRule(engine, {
      triggerConditions: [{ field: 'status', operator: 'eq', value: 'new' }],
      steps: [
        { type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } },
        { type: 'wait', order: 2, config: { duration: 1, unit: 'hours' } },
        {
          type: 'create_task',
          order: 3,
          config: { name: 'Call {{lead.firstName}} at {{lead.company}}', assignTo: 'assigned_user', dueDays: 3 },
        },
        {
          type: 'send_notification',
          order: 4,
          config: { recipients: ['assigned_user'], message: '{{lead.firstName}} {{lead.lastName}} joined {{workspace.name}}' },
        },
      ],
    });
    const record = lead();
    await leadCreated(engine, record);
    const [log] = await settled(engine, ruleId);
    expect(log).toMatchObject({
      status: 'completed',
      completedSteps: 4,
      totalSteps: 4,
      enrolledRecordId: record.id,
      enrolledRecordType: 'lead',
    });
    expect(engine.transport.sent).toEqual([expect.objectContaining({ to: record.email, subject: 'Welcome, Ada' })]);
    expect(engine.transport.sent[0]!.body).toContain('Grace at Acme Corp');
    const due = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    expect(engine.records.tasks).toEqual([
      expect.objectContaining({ name: 'Call Ada at Engines', assignedTo: 'usr_owner', relatedTo: record.id, dueDate: due }),
    ]);
    const sent = await engine.store.forWorkspace(WS).find(notifications);
    expect(sent).toEqual([
      expect.objectContaining({ recipient: 'usr_owner', message: 'Ada Lovelace joined Acme Corp', relatedTo: record.id }),
    ]);
    expect((await engine.store.forWorkspace(WS).get(rules, ruleId))!.enrolledCount).toBe(1);
  });

  it('does not enroll a record whose trigger conditions do not hold, or into an inactive rule', async () => {
    const ruleId = await activeRule(engine, {
      triggerConditions: [{ field: 'leadScore', operator: 'gte', value: 80 }],
      steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'minutes' } }],
    });
    const inactive = await engine.rules.createRule(caller, {
      name: 'Off',
      trigger: 'lead_created',
      steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'minutes' } }],
    });
    await leadCreated(engine, lead({ leadScore: 10 }));
    await new Promise((r) => setTimeout(r, 100));
    expect(await logsOf(engine, ruleId)).toEqual([]);
    expect(await logsOf(engine, inactive.id)).toEqual([]);
  });

  it('enrolls once when the same event is delivered twice', async () => {
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'send_notification', order: 1, config: { recipients: ['assigned_user'], message: 'hi' } }],
    });
    const record = lead();
    engine.records.put(record);
    const message = await leadCreated(engine, record);
    await engine.bus.publish(message);
    await settled(engine, ruleId);
    await new Promise((r) => setTimeout(r, 50));
    expect(await logsOf(engine, ruleId)).toHaveLength(1);
    expect((await engine.store.forWorkspace(WS).get(rules, ruleId))!.enrolledCount).toBe(1);
  });

  it('keeps a record in a rule at most once at a time', async () => {
    await engine.close();
    engine = await buildEngine({ waitScale: 1 });
    const ruleId = await activeRule(engine, { steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }] });
    const record = lead();
    await Promise.all([leadCreated(engine, record), leadCreated(engine, record), leadCreated(engine, record)]);
    await eventually(async () => (await logsOf(engine, ruleId)).length === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(await logsOf(engine, ruleId)).toHaveLength(1);
  });

  it('ends cancelled when an exit condition holds as the wait ends', async () => {
    const ruleId = await activeRule(engine, {
      exitConditions: [{ field: 'status', operator: 'eq', value: 'converted' }],
      steps: [
        { type: 'wait', order: 1, config: { duration: 2, unit: 'days' } },
        { type: 'send_email', order: 2, config: { mode: 'template', templateId: 'lead_follow_up' } },
      ],
    });
    const record = lead();
    engine.records.put(record);
    record.status = 'converted';
    await leadCreated(engine, { ...record, status: 'new' });
    engine.records.put({ ...record, status: 'converted' });
    const [log] = await settled(engine, ruleId);
    expect(log).toMatchObject({ status: 'cancelled', completedSteps: 0, reason: 'Exit condition met: status eq "converted".' });
    expect(engine.transport.sent).toEqual([]);
  });

  it('ends cleanly when the record was deleted', async () => {
    const ruleId = await activeRule(engine, { steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'hours' } }] });
    const record = lead();
    await leadCreated(engine, record);
    engine.records.records.delete(String(record.id));
    const [log] = await settled(engine, ruleId);
    expect(log).toMatchObject({ status: 'cancelled', reason: 'The enrolled lead was deleted.' });
  });

  it('skips, without failing, an email to a lead that opted out or bounced', async () => {
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } }],
    });
    await leadCreated(engine, lead({ emailOptOut: true }));
    await leadCreated(engine, lead({ emailBounced: true }));
    const logs = await settled(engine, ruleId, 2);
    expect(logs.map((l) => l.status)).toEqual(['completed', 'completed']);
    expect(logs.map((l) => l.stepResults[0]!.status)).toEqual(['skipped', 'skipped']);
    expect(engine.transport.sent).toEqual([]);
    expect(await engine.store.forWorkspace(WS).find(emails)).toEqual([]);
  });

  it("fails an email past the plan's daily quota, saying so, and sends the others", async () => {
    const quota = PLAN_QUOTAS.starter.emailsPerDay;
    const today = new Date().toISOString().slice(0, 10);
    const scoped = engine.store.forWorkspace(WS);
    // Yesterday's count is deleted when today's opens; today's stands two below the quota.
    await scoped.insert(emailQuotaDays, { id: '2000-01-01', workspaceId: WS, count: quota });
    await scoped.insert(emailQuotaDays, { id: today, workspaceId: WS, count: quota - 2 });
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } }],
    });
    for (let i = 0; i < 3; i++) await leadCreated(engine, lead());
    const logs = await settled(engine, ruleId, 3);
    expect(logs.map((l) => l.status).sort()).toEqual(['completed', 'completed', 'failed']);
    expect(logs.find((l) => l.status === 'failed')!.reason).toMatch(/daily email quota \(500 a day on the starter plan/);
    expect(engine.transport.sent).toHaveLength(2);
    expect((await scoped.get(emailQuotaDays, today))!.count).toBe(quota);
    // A bigger plan's quota applies at once.
    engine.directory.planName = 'growth';
    await leadCreated(engine, lead());
    await settled(engine, ruleId, 4);
    expect(engine.transport.sent).toHaveLength(3);
  });

  it('opens a day of the email quota once, and deletes the days before it', async () => {
    const scoped = engine.store.forWorkspace(WS);
    await scoped.insert(emailQuotaDays, { id: '2000-01-01', workspaceId: WS, count: 3 });
    const quota = new EmailQuota(engine.repositories.emails);
    const now = new Date('2026-11-26T10:00:00Z');
    await Promise.all(Array.from({ length: 5 }, () => quota.reserve(WS, 'starter', now)));
    expect(await scoped.find(emailQuotaDays)).toEqual([expect.objectContaining({ id: '2026-11-26', count: 5 })]);
  });

  it('fails an ai_generated email without a model provider, saying what is missing', async () => {
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'send_email', order: 1, config: { mode: 'ai_generated', prompt: 'Greet {{lead.firstName}}' } }],
    });
    await leadCreated(engine, lead());
    const [log] = await settled(engine, ruleId);
    expect(log!.status).toBe('failed');
    expect(log!.reason).toMatch(/AI_PROVIDER_URL/);
    expect(engine.transport.sent).toEqual([]);
  });

  it('writes an ai_generated email through a configured provider', async () => {
    await engine.close();
    const writer = new OpenAiCompatibleWriter('http://unused', 'm', undefined);
    writer.write = async (prompt) => ({ subject: 'Hello', body: `Written for: ${prompt}` });
    engine = await buildEngine({ waitScale: 0.00001, ai: writer });
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'send_email', order: 1, config: { mode: 'ai_generated', prompt: 'Greet {{lead.firstName}}' } }],
    });
    await leadCreated(engine, lead());
    await settled(engine, ruleId);
    expect(engine.transport.sent).toEqual([expect.objectContaining({ subject: 'Hello', body: 'Written for: Greet Ada' })]);
  });

  it('retries a step when records is briefly unavailable', async () => {
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'create_task', order: 1, config: { name: 'Call', assignTo: 'assigned_user', dueDays: 0 } }],
    });
    engine.records.failNext = 1;
    await leadCreated(engine, lead());
    const [log] = await eventually(async () => {
      const logs = await logsOf(engine, ruleId);
      return logs[0]?.status === 'completed' ? logs : undefined;
    }, 8000);
    expect(log!.stepResults).toHaveLength(1);
    expect(engine.records.tasks).toHaveLength(1);
  });

  it('shares assignments fairly under concurrency (an atomic round-robin counter)', async () => {
    await engine.close();
    engine = await buildEngine({ consume: false });
    const users = ['usr_a', 'usr_b', 'usr_c'];
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'assign_user', order: 1, config: { mode: 'round_robin', userIds: users } }],
    });
    const records = Array.from({ length: 30 }, () => engine.records.put(lead()));
    for (const record of records) {
      await engine.enroller.handle({
        id: `evt-${String(record.id)}`,
        type: 'records.lead_created.v1',
        correlationId: 'c',
        occurredAt: '',
        payload: { workspaceId: WS, recordId: record.id, record },
      });
    }
    const enrolled = await engine.store.forWorkspace(WS).find(enrollments);
    await Promise.all(enrolled.map((e) => engine.runner.runStep(WS, e.id, 0)));
    const counts = new Map<string, number>();
    for (const a of engine.records.assignments) counts.set(a.userId, (counts.get(a.userId) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ usr_a: 10, usr_b: 10, usr_c: 10 });
    expect((await logsOf(engine, ruleId)).every((l) => l.status === 'completed')).toBe(true);
  });

  it('runs a step once when two workers are handed it at the same time', async () => {
    await engine.close();
    engine = await buildEngine({ consume: false });
    await activeRule(engine, {
      steps: [
        { type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } },
        { type: 'create_task', order: 2, config: { name: 'Call', assignTo: 'assigned_user', dueDays: 1 } },
      ],
    });
    const record = engine.records.put(lead());
    await engine.enroller.handle({
      id: 'evt-1',
      type: 'records.lead_created.v1',
      correlationId: 'c',
      occurredAt: '',
      payload: { workspaceId: WS, recordId: record.id, record },
    });
    const [enrollment] = await engine.store.forWorkspace(WS).find(enrollments);
    await Promise.all([
      engine.runner.runStep(WS, enrollment!.id, 0),
      engine.runner.runStep(WS, enrollment!.id, 0),
      engine.runner.runStep(WS, enrollment!.id, 0),
    ]);
    await Promise.all([engine.runner.runStep(WS, enrollment!.id, 1), engine.runner.runStep(WS, enrollment!.id, 1)]);
    expect(engine.transport.sent).toHaveLength(1);
    expect(engine.records.tasks).toHaveLength(1);
    expect(await engine.store.forWorkspace(WS).get(enrollments, enrollment!.id)).toMatchObject({ status: 'completed', completedSteps: 2 });
  });

  it('does not repeat a task when a crashed attempt of the step is taken over', async () => {
    await engine.close();
    engine = await buildEngine({ consume: false });
    await activeRule(engine, {
      steps: [{ type: 'create_task', order: 1, config: { name: 'Call', assignTo: 'assigned_user', dueDays: 1 } }],
    });
    const record = engine.records.put(lead());
    await engine.enroller.handle({
      id: 'evt-2',
      type: 'records.lead_created.v1',
      correlationId: 'c',
      occurredAt: '',
      payload: { workspaceId: WS, recordId: record.id, record },
    });
    const scoped = engine.store.forWorkspace(WS);
    const [enrollment] = await scoped.find(enrollments);
    // A worker claimed the step, created the task, and died before recording it; its claim has expired.
    await scoped.update(enrollments, enrollment!.id, {
      set: { claimUntil: Date.now() - 1, claimToken: 'dead', lastClaim: { stepIndex: 0, at: Date.now() - 500 } },
    });
    await engine.records.createTask(WS, { name: 'Call', dueDate: '2030-01-01', assignedTo: 'usr_owner', relatedTo: String(record.id) });
    await engine.runner.runStep(WS, enrollment!.id, 0);
    expect(engine.records.tasks).toHaveLength(1);
    expect(await scoped.get(enrollments, enrollment!.id)).toMatchObject({ status: 'completed' });
  });

  it('re-publishes an overdue step whose message was lost', async () => {
    await engine.close();
    engine = await buildEngine({ consume: false });
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'send_notification', order: 1, config: { recipients: ['assigned_user'], message: 'hi' } }],
    });
    const record = engine.records.put(lead());
    // The step message goes nowhere: no step consumer is attached yet.
    await engine.enroller.handle({
      id: 'evt-3',
      type: 'records.lead_created.v1',
      correlationId: 'c',
      occurredAt: '',
      payload: { workspaceId: WS, recordId: record.id, record },
    });
    await engine.bus.consume({ name: 'automation.steps', bindings: ['automation.step_due.v1'] }, (m) => engine.runner.handle(m));
    expect(await engine.sweeper.sweep()).toBe(1);
    const [log] = await settled(engine, ruleId);
    expect(log!.status).toBe('completed');
  });

  it('lets one sweeper at a time hold the lease', async () => {
    const other = await buildEngine({ consume: false });
    try {
      expect(await engine.sweeper.acquireLease()).toBe(true);
      expect(await engine.sweeper.acquireLease()).toBe(true);
      const { Sweeper } = sweeperModule;
      const rival = new Sweeper(engine.repositories, { dispatch: async () => undefined } as never, { info() {}, warn() {} } as never, {
        intervalMs: 1000,
        graceMs: 0,
      });
      expect(await rival.acquireLease()).toBe(false);
      expect(await rival.acquireLease(Date.now() + 10_000)).toBe(true);
    } finally {
      await other.close();
    }
  });

  /**
   * A rule enrolling new customer contacts; three contacts (the second not a customer) published in
   * one message made by `message`, delivered twice: the first and third are enrolled, once each.
   */
  async function enrollsCustomersOnce(message: (contacts: Record<string, unknown>[]) => Promise<BusMessage>): Promise<void> {
    const ruleId = await activeRule(engine, {
      trigger: 'contact_created',
      triggerConditions: [{ field: 'stage', operator: 'eq', value: 'customer' }],
      steps: [{ type: 'send_notification', order: 1, config: { recipients: ['assigned_user'], message: 'new contact' } }],
    });
    const contacts = [1, 2, 3].map((n) => ({
      id: `cnt_${n}`,
      firstName: `C${n}`,
      email: `c${n}@example.com`,
      stage: n === 2 ? 'lead' : 'customer',
    }));
    for (const contact of contacts) engine.records.put(contact);
    const sent = await message(contacts);
    await settled(engine, ruleId, 2);
    await engine.bus.publish(sent);
    await new Promise((r) => setTimeout(r, 100));
    const logs = await logsOf(engine, ruleId);
    expect(logs.map((l) => l.enrolledRecordId).sort()).toEqual(['cnt_1', 'cnt_3']);
    expect((await engine.store.forWorkspace(WS).get(rules, ruleId))!.enrolledCount).toBe(2);
  }

  const contactPayload = (record: Record<string, unknown>) => ({ workspaceId: WS, recordType: 'contact', recordId: record.id, record });

  it('enrolls every contact of a batch event once, even when the batch is delivered twice', () =>
    enrollsCustomersOnce((contacts) =>
      engine.publishEvent('records.contacts_created.v1', { workspaceId: WS, events: contacts.map(contactPayload) }),
    ));

  it("enrolls each record of a batch write's group as its own event would, once, even when the group is delivered twice", () =>
    enrollsCustomersOnce((contacts) =>
      engine.publishEvent(RECORDS_WRITTEN, {
        workspaceId: WS,
        written: [
          ...contacts.map((record) => ({ type: 'records.contact_created.v1', payload: contactPayload(record) })),
          { type: 'records.record_updated.v1', payload: contactPayload(contacts[0]!) },
        ],
      }),
    ));

  it("never re-enrolls a record in a rule through that rule's own actions", async () => {
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'assign_user', order: 1, config: { mode: 'round_robin', userIds: ['usr_a'] } }],
    });
    const record = lead();
    await leadCreated(engine, record);
    await settled(engine, ruleId);
    const [assignment] = engine.records.assignments;
    // Records publishes the events of automation's write with the cause that write carried.
    await leadCreated(engine, lead({ id: record.id }), assignment!.correlationId, assignment!.correlationId);
    await new Promise((r) => setTimeout(r, 100));
    expect(await logsOf(engine, ruleId)).toHaveLength(1);
  });

  it("reads the cause, never the correlation id: a client's request id shaped like a cause enrolls as any other event", async () => {
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'assign_user', order: 1, config: { mode: 'round_robin', userIds: ['usr_a'] } }],
    });
    await leadCreated(engine, lead(), `automation:1:${ruleId}:x`);
    await leadCreated(engine, lead(), 'automation:3:rul_a+rul_b+rul_c:y');
    await settled(engine, ruleId, 2);
    expect(await logsOf(engine, ruleId)).toHaveLength(2);
  });
});
