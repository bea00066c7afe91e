import { newMessage } from '@crm/bus';
import { RECORDS_WRITTEN } from '@crm/vocabulary';
import type { RuleInput } from '../../domain/rule-validation';
import { emails, enrollments } from '../../store/collections';
import { buildEngine, eventually, type EngineHarness } from '../../testing/automation-factory';

const WS = 'ws_exit';
const caller = { workspaceId: WS };
const CONVERTED = { field: 'status', operator: 'eq', value: 'converted' } as const;
let seq = 0;

function lead(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  seq += 1;
  return { id: `ld_x${seq}`, firstName: 'Ada', email: `ada${seq}@example.com`, status: 'new', assignedTo: 'usr_owner', ...overrides };
}

async function activeRule(engine: EngineHarness, input: Partial<RuleInput>): Promise<string> {
  const rule = await engine.rules.createRule(caller, { name: 'Rule', trigger: 'lead_created', exitConditions: [CONVERTED], ...input });
  await engine.rules.setActive(caller, rule.id, true);
  return rule.id;
}

function created(record: Record<string, unknown>) {
  return newMessage(
    'records.lead_created.v1',
    { workspaceId: WS, recordType: 'lead', recordId: record.id, record },
    { correlationId: 'req' },
  );
}

/** Records' event for an update, carrying the record as the event saw it. */
function updated(record: Record<string, unknown>) {
  return newMessage(
    'records.record_updated.v1',
    { workspaceId: WS, recordType: 'lead', recordId: record.id, record },
    { correlationId: 'req' },
  );
}

async function runOf(engine: EngineHarness, ruleId: string) {
  return eventually(async () => (await engine.store.forWorkspace(WS).find(enrollments)).find((run) => run.ruleId === ruleId));
}

/** A promise and the function that settles it, to hold a call half-way. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const twoDayWait = [
  { type: 'wait' as const, order: 1, config: { duration: 2, unit: 'days' as const } },
  { type: 'send_email' as const, order: 2, config: { mode: 'template' as const, templateId: 'lead_follow_up' } },
];

describe('exit conditions on a record change', () => {
  let engine: EngineHarness;
  afterEach(() => engine.close());

  it('ends a run in a two-day wait as soon as an event shows the exit condition, saying which and when', async () => {
    engine = await buildEngine({ waitScale: 1 });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    await engine.bus.publish(created(record));
    expect((await runOf(engine, ruleId)).status).toBe('in_progress');
    const before = new Date(Date.now() - 1000).toISOString();
    engine.records.put({ ...record, status: 'converted' });
    await engine.bus.publish(updated({ ...record, status: 'converted' }));
    const run = await eventually(async () => {
      const current = await runOf(engine, ruleId);
      return current.status === 'cancelled' ? current : undefined;
    }, 3000);
    expect(run).toMatchObject({
      completedSteps: 0,
      reason: 'Exit condition met: status eq "converted".',
      exit: { condition: CONVERTED },
      activeKey: null,
      dueAt: null,
    });
    expect(run.exit!.metAt >= before.replace(/\.\d{3}Z$/, 'Z')).toBe(true);
    const [log] = (await engine.rules.listLogs(caller, ruleId, { offset: 0, limit: 10 })).items;
    expect(log).toMatchObject({ status: 'cancelled', exit: { condition: CONVERTED } });
  });

  it("ends a run when an update in a batch write's group meets the exit condition", async () => {
    engine = await buildEngine({ waitScale: 1 });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    await engine.bus.publish(created(record));
    expect((await runOf(engine, ruleId)).status).toBe('in_progress');
    const other = lead();
    engine.records.put({ ...record, status: 'converted' });
    const event = (r: Record<string, unknown>) => ({ type: 'records.record_updated.v1', payload: updated(r).payload });
    await engine.exits.handle(
      newMessage(
        RECORDS_WRITTEN,
        { workspaceId: WS, written: [event(other), event({ ...record, status: 'converted' })] },
        { correlationId: 'req' },
      ),
    );
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'cancelled', exit: { condition: CONVERTED } });
  });

  it("reads the runs of a group's records in one go, and ends a run once however often the group names its record", async () => {
    engine = await buildEngine({ waitScale: 1 });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    await engine.bus.publish(created(record));
    expect((await runOf(engine, ruleId)).status).toBe('in_progress');
    engine.records.put({ ...record, status: 'converted' });
    const single = jest.spyOn(engine.repositories.runs, 'runsInProgress');
    const grouped = jest.spyOn(engine.repositories.runs, 'runsInProgressOf');
    const reads = jest.spyOn(engine.records, 'getRecord');
    const event = (r: Record<string, unknown>) => ({ type: 'records.record_updated.v1', payload: updated(r).payload });
    const others = Array.from({ length: 600 }, () => event(lead()));
    const converted = event({ ...record, status: 'converted' });
    await engine.exits.handle(
      newMessage(RECORDS_WRITTEN, { workspaceId: WS, written: [...others, converted, converted] }, { correlationId: 'req' }),
    );
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'cancelled', exit: { condition: CONVERTED } });
    expect(single).not.toHaveBeenCalled();
    expect(grouped).toHaveBeenCalledTimes(1);
    // Only the converted record has a run; its second event finds the run ended already.
    expect(reads).toHaveBeenCalledTimes(1);
    // 601 records: two reads of at most 500 ids.
    expect(await grouped.mock.results[0]!.value).toHaveLength(1);
  });

  it('leaves the run enrolled when the change does not meet the exit condition, or the event is stale', async () => {
    engine = await buildEngine({ waitScale: 1 });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    await engine.bus.publish(created(record));
    await runOf(engine, ruleId);
    engine.records.put({ ...record, status: 'contacted' });
    await engine.exits.handle(updated({ ...record, status: 'contacted' }));
    // An older event saying "converted", handled after the record moved on: the record as it is decides.
    await engine.exits.handle(updated({ ...record, status: 'converted' }));
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'in_progress', exit: null, stepIndex: 0 });
  });

  it('ends the run once when the event is delivered twice to two workers', async () => {
    engine = await buildEngine({ waitScale: 1, consume: false });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    await engine.enroller.handle(created(record));
    engine.records.put({ ...record, status: 'converted' });
    const event = updated({ ...record, status: 'converted' });
    await Promise.all([engine.exits.handle(event), engine.exits.handle(event), engine.exits.handle(event)]);
    const run = await runOf(engine, ruleId);
    expect(run).toMatchObject({ status: 'cancelled', exit: { condition: CONVERTED } });
    const completedAt = run.completedAt;
    await engine.exits.handle(event);
    expect((await runOf(engine, ruleId)).completedAt).toBe(completedAt);
  });

  it('stops a step claimed before the exit: it does not act after the run was cancelled', async () => {
    engine = await buildEngine({ waitScale: 1, consume: false });
    const ruleId = await activeRule(engine, {
      steps: [{ type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } }],
    });
    const record = engine.records.put(lead());
    await engine.enroller.handle(created(record));
    const run = await runOf(engine, ruleId);
    // The runner claims the step and reads the record (not converted yet), then is held there.
    const held = gate();
    const read = gate();
    const getRecord = engine.records.getRecord.bind(engine.records);
    jest.spyOn(engine.records, 'getRecord').mockImplementationOnce(async (...args) => {
      const snapshot = await getRecord(...args);
      read.open();
      await held.opened;
      return snapshot;
    });
    const step = engine.runner.runStep(WS, run.id, 0);
    await read.opened;
    expect((await runOf(engine, ruleId)).claimToken).not.toBeNull();
    engine.records.put({ ...record, status: 'converted' });
    await engine.exits.handle(updated({ ...record, status: 'converted' }));
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'cancelled', claimToken: null });
    held.open();
    await step;
    expect(engine.transport.sent).toEqual([]);
    expect(await engine.store.forWorkspace(WS).find(emails)).toEqual([]);
    expect(await runOf(engine, ruleId)).toMatchObject({
      status: 'cancelled',
      completedSteps: 0,
      stepResults: [],
      exit: { condition: CONVERTED },
    });
  });

  it('checks a run its own event enrolled: a change handled before the insert cannot leave it waiting', async () => {
    engine = await buildEngine({ waitScale: 1 });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    // The lead was converted right after it was created; that event was handled before the enrollment existed.
    engine.records.put({ ...record, status: 'converted' });
    await engine.bus.publish(created(record));
    await eventually(async () => (await runOf(engine, ruleId)).status === 'cancelled', 3000);
    expect(await runOf(engine, ruleId)).toMatchObject({ completedSteps: 0, exit: { condition: CONVERTED } });
  });

  it('still ends the run, with its exit, when the step falls due and no event was seen', async () => {
    engine = await buildEngine({ waitScale: 0, consume: false });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    await engine.enroller.handle(created(record));
    const run = await runOf(engine, ruleId);
    engine.records.put({ ...record, status: 'converted' });
    await engine.runner.runStep(WS, run.id, 0);
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'cancelled', completedSteps: 0, exit: { condition: CONVERTED } });
    expect(engine.transport.sent).toEqual([]);
  });

  it('does not wait for a step whose worker died acting (its claim ran out)', async () => {
    engine = await buildEngine({ waitScale: 1, consume: false });
    const ruleId = await activeRule(engine, { steps: twoDayWait });
    const record = engine.records.put(lead());
    await engine.enroller.handle(created(record));
    const run = await runOf(engine, ruleId);
    const past = Date.now() - 1000;
    await engine.store.forWorkspace(WS).update(enrollments, run.id, { set: { claimToken: 'dead', actingToken: 'dead', claimUntil: past } });
    engine.records.put({ ...record, status: 'converted' });
    await engine.exits.handle(updated({ ...record, status: 'converted' }));
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'cancelled', actingToken: null, exit: { condition: CONVERTED } });
  });

  it('lets a step already acting finish, then ends the run on the exit before the next step', async () => {
    engine = await buildEngine({ waitScale: 1, consume: false });
    const ruleId = await activeRule(engine, {
      steps: [
        { type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } },
        { type: 'send_notification', order: 2, config: { recipients: ['assigned_user'], message: 'hi' } },
      ],
    });
    const record = engine.records.put(lead());
    await engine.enroller.handle(created(record));
    const run = await runOf(engine, ruleId);
    const held = gate();
    const sending = gate();
    const send = engine.transport.send.bind(engine.transport);
    jest.spyOn(engine.transport, 'send').mockImplementationOnce(async (email) => {
      sending.open();
      await held.opened;
      await send(email);
    });
    const step = engine.runner.runStep(WS, run.id, 0);
    await sending.opened;
    engine.records.put({ ...record, status: 'converted' });
    await engine.exits.handle(updated({ ...record, status: 'converted' }));
    // The email is on its way: the exit waits on the run for the step's end.
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'in_progress', exit: { condition: CONVERTED } });
    held.open();
    await expect(step).resolves.toBeNull();
    const ended = await runOf(engine, ruleId);
    expect(ended).toMatchObject({ status: 'cancelled', completedSteps: 1, reason: 'Exit condition met: status eq "converted".' });
    expect(ended.stepResults.map((r) => [r.order, r.status])).toEqual([[1, 'completed']]);
    expect(engine.transport.sent).toHaveLength(1);
    await expect(engine.runner.runStep(WS, run.id, 1)).resolves.toBeNull();
    expect(await runOf(engine, ruleId)).toMatchObject({ status: 'cancelled', completedSteps: 1 });
  });
});
