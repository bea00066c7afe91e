/**
 * Exit conditions apply when the record changes, not when the run's next step falls due. Runs wait
 * two real days (CRM_WAIT_TIME_SCALE=1), so nothing but the exit evaluation can end them within the
 * test; the changes go through the HTTPS API and the execution log is polled there too.
 */
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';

jest.setTimeout(180_000);

/** How soon after the change the run must have left the rule (the bound). */
const EXIT_WITHIN_MS = 5_000;

let cluster: TestCluster;
let api: ApiClient;
let owner: SignedUp;

beforeAll(async () => {
  cluster = await startTestCluster({ gateways: 1, workers: 2, env: { CRM_WAIT_TIME_SCALE: '1' } });
  owner = await signUp(cluster.api);
  await liftRateLimit(cluster.cluster, owner.user.workspaceId);
  api = cluster.api.withToken(owner.access);
}, 60_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await cluster?.stop();
});

async function poll<T>(description: string, check: () => Promise<T | undefined | null | false>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Not within ${timeoutMs} ms: ${description}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A rule whose runs wait two days before emailing, leaving when an exit condition holds. */
async function twoDayRule(exitConditions: Record<string, unknown>[]): Promise<string> {
  const created = await api.post('/api/automations/rules/', {
    name: 'Two-day follow-up',
    trigger: 'lead_created',
    exitConditions,
    steps: [
      { type: 'wait', order: 1, config: { duration: 2, unit: 'days' } },
      { type: 'send_email', order: 2, config: { mode: 'template', templateId: 'lead_follow_up' } },
    ],
  });
  expect(created.status).toBe(201);
  expect((await api.post(`/api/automations/rules/${created.body.id}/activate/`)).status).toBe(200);
  return created.body.id;
}

let leadSeq = 0;
async function createLead(overrides: Record<string, unknown> = {}): Promise<string> {
  leadSeq += 1;
  const response = await api.post('/api/leads/', {
    firstName: 'Ada',
    lastName: `Exit${leadSeq}`,
    email: `exit-${leadSeq}-${Date.now()}@example.com`,
    company: 'Analytical Engines',
    ...overrides,
  });
  expect(response.status).toBe(201);
  return response.body.id;
}

async function logOf(ruleId: string, leadId: string): Promise<any> {
  const response = await api.get(`/api/automations/rules/${ruleId}/logs/?limit=100`);
  expect(response.status).toBe(200);
  return response.body.results.find((log: any) => log.enrolledRecordId === leadId);
}

/** Enrolled and waiting: in progress, the email step due in about two days. */
async function waitingRun(ruleId: string, leadId: string): Promise<any> {
  const log = await poll(`${leadId} enrolled`, () => logOf(ruleId, leadId), 60_000);
  expect(log).toMatchObject({ status: 'in_progress', completedSteps: 0, totalSteps: 2, exit: null });
  expect(Date.parse(log.nextStepDueAt) - Date.now()).toBeGreaterThan(47 * 3_600_000);
  return log;
}

async function cancelledWithin(ruleId: string, leadId: string, changedAt: number): Promise<any> {
  const log = await poll(
    `the run of ${leadId} cancelled by its exit condition`,
    async () => {
      const current = await logOf(ruleId, leadId);
      return current?.status === 'cancelled' ? current : undefined;
    },
    EXIT_WITHIN_MS - (Date.now() - changedAt),
  );
  return log;
}

describe('exit conditions on the local cluster (CRM_WAIT_TIME_SCALE=1)', () => {
  it('cancels a run in a two-day wait within 5 s of the lead being converted, saying which condition and when', async () => {
    const ruleId = await twoDayRule([{ field: 'status', operator: 'eq', value: 'converted' }]);
    const leadId = await createLead();
    await waitingRun(ruleId, leadId);
    const changedAt = Date.now();
    const converted = await api.post(`/api/leads/${leadId}/convert/`, {});
    expect(converted.status).toBe(200);
    const log = await cancelledWithin(ruleId, leadId, changedAt);
    expect(log).toMatchObject({
      completedSteps: 0,
      nextStepDueAt: null,
      reason: 'Exit condition met: status eq "converted".',
      exit: { condition: { field: 'status', operator: 'eq', value: 'converted' }, metAt: expect.any(String) },
    });
    // metAt is to the second: it falls between the change and now.
    expect(Date.parse(log.exit.metAt)).toBeGreaterThanOrEqual(Math.floor(changedAt / 1000) * 1000);
    expect(Date.parse(log.exit.metAt)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(log.completedAt)).toBeGreaterThanOrEqual(Math.floor(changedAt / 1000) * 1000);
    const cancelled = await api.get(`/api/automations/rules/${ruleId}/logs/?status=cancelled`);
    expect(cancelled.body.results.map((l: any) => l.enrolledRecordId)).toContain(leadId);
  });

  it('applies an exit condition on any field a plain update changes (PATCH), not only status', async () => {
    const ruleId = await twoDayRule([{ field: 'leadScore', operator: 'gte', value: 80 }]);
    const leadId = await createLead({ leadScore: 10 });
    await waitingRun(ruleId, leadId);
    const changedAt = Date.now();
    const patched = await api.patch(`/api/leads/${leadId}/`, { leadScore: 90 });
    expect(patched.status).toBe(200);
    const log = await cancelledWithin(ruleId, leadId, changedAt);
    expect(log).toMatchObject({ reason: 'Exit condition met: leadScore gte 80.', exit: { condition: { field: 'leadScore', value: 80 } } });
  });

  it('leaves the run enrolled, its wait unchanged, when a change does not meet the exit condition', async () => {
    const ruleId = await twoDayRule([{ field: 'status', operator: 'eq', value: 'converted' }]);
    const kept = await createLead();
    const witness = await createLead();
    const before = await waitingRun(ruleId, kept);
    await waitingRun(ruleId, witness);
    const changed = await api.patch(`/api/leads/${kept}/`, { status: 'contacted', company: 'Difference Engines' });
    expect(changed.status).toBe(200);
    // A later change that does meet it, on another lead of the same rule: once that one has left,
    // the workers have been handed both events.
    expect((await api.post(`/api/leads/${witness}/convert/`, {})).status).toBe(200);
    await poll('the witness run cancelled', async () => (await logOf(ruleId, witness))?.status === 'cancelled', 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    const after = await logOf(ruleId, kept);
    expect(after).toMatchObject({
      status: 'in_progress',
      completedSteps: 0,
      exit: null,
      reason: null,
      nextStepDueAt: before.nextStepDueAt,
    });
  });
});
