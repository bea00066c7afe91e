/**
 * Automation across the local cluster: rules and templates through the gateway, records events
 * through RabbitMQ to the automation workers, steps run against records over gRPC, waits through
 * the bus's delay tiers (scaled by CRM_WAIT_TIME_SCALE=0.001: an hour is 3.6 s), and a worker
 * restart with waits pending.
 */
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';
import { eventually } from '../support/eventually';

jest.setTimeout(180_000);

let cluster: TestCluster;
let api: ApiClient;
let owner: SignedUp;

beforeAll(async () => {
  cluster = await startTestCluster({
    gateways: 1,
    workers: 2,
    env: { CRM_WAIT_TIME_SCALE: '0.001', SWEEP_INTERVAL_MS: '1000', SWEEP_GRACE_MS: '1000' },
  });
  owner = await signUp(cluster.api);
  // The suite polls execution logs; a starter plan's 100 requests a minute would get in the way.
  await liftRateLimit(cluster.cluster, owner.user.workspaceId);
  api = cluster.api.withToken(owner.access);
}, 60_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await cluster?.stop();
});

async function activeRule(body: Record<string, unknown>): Promise<{ id: string }> {
  const created = await api.post('/api/automations/rules/', { name: 'Rule', trigger: 'lead_created', ...body });
  expect(created.status).toBe(201);
  const activated = await api.post(`/api/automations/rules/${created.body.id}/activate/`);
  expect(activated.status).toBe(200);
  expect(activated.body.isActive).toBe(true);
  return created.body;
}

let leadSeq = 0;
async function createLead(overrides: Record<string, unknown> = {}): Promise<{ id: string; email: string }> {
  leadSeq += 1;
  const response = await api.post('/api/leads/', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `ada-${leadSeq}-${Date.now()}@example.com`,
    company: 'Analytical Engines',
    assignedTo: owner.user.id,
    ...overrides,
  });
  if (response.status !== 201) throw new Error(`lead create failed: ${response.status} ${response.text}`);
  return response.body;
}

async function logsFor(ruleId: string, recordId?: string): Promise<any[]> {
  const response = await api.get(`/api/automations/rules/${ruleId}/logs/?limit=100`);
  expect(response.status).toBe(200);
  return response.body.results.filter((log: any) => !recordId || log.enrolledRecordId === recordId);
}

async function finishedLog(ruleId: string, recordId: string): Promise<any> {
  return eventually(`the log of ${recordId} to finish`, async () => {
    const [log] = await logsFor(ruleId, recordId);
    return log && log.status !== 'in_progress' ? log : undefined;
  });
}

describe('automation rules through the gateway', () => {
  it('refuses a rule with field paths for every problem', async () => {
    const response = await api.post('/api/automations/rules/', {
      name: 'Bad',
      trigger: 'lead_created',
      triggerConditions: [{ field: 'stage', operator: 'eq', value: 'proposal' }],
      steps: [
        { type: 'wait', order: 1, config: { unit: 'days' } },
        { type: 'send_notification', order: 3, config: { recipients: ['assigned_user'], message: 'Hi {{lead.nickname}}' } },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      'triggerConditions.0.field': ['Unknown field "stage" for a lead.'],
      'steps.0.config.duration': ['This field is required.'],
      'steps.1.config.message': [expect.stringMatching(/Unknown placeholder \{\{lead.nickname\}\}/)],
      steps: [expect.stringMatching(/without gaps/)],
    });
  });

  it('creates inactive, patches any subset, lists, and deletes with 204', async () => {
    const created = await api.post('/api/automations/rules/', {
      name: 'CRUD',
      trigger: 'lead_created',
      steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ isActive: false, stepCount: 1, enrolledCount: 0, triggerConditions: [], exitConditions: [] });
    const patched = await api.patch(`/api/automations/rules/${created.body.id}/`, { ...created.body, name: 'Renamed' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, name: 'Renamed', steps: created.body.steps });
    const list = await api.get('/api/automations/rules/');
    expect(list.body.results).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: created.body.id, name: 'Renamed', stepCount: 1 })]),
    );
    expect((await api.delete(`/api/automations/rules/${created.body.id}/`)).status).toBe(204);
    expect((await api.get(`/api/automations/rules/${created.body.id}/`)).status).toBe(404);
  });
});

describe('the engine on the local cluster', () => {
  it('runs a rule for a new lead: email, task, notification and assignment, with the log completed', async () => {
    const rule = await activeRule({
      triggerConditions: [{ field: 'company', operator: 'contains', value: 'engines' }],
      exitConditions: [{ field: 'status', operator: 'eq', value: 'lost' }],
      steps: [
        { type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } },
        {
          type: 'create_task',
          order: 2,
          config: { name: 'Call {{lead.firstName}} at {{lead.company}}', assignTo: 'assigned_user', dueDays: 2 },
        },
        {
          type: 'send_notification',
          order: 3,
          config: { recipients: ['assigned_user'], message: 'New lead {{lead.firstName}} {{lead.lastName}} for {{workspace.name}}' },
        },
        { type: 'assign_user', order: 4, config: { mode: 'round_robin', userIds: [owner.user.id] } },
      ],
    });
    const lead = await createLead();
    const log = await finishedLog(rule.id, lead.id);
    expect(log).toMatchObject({ status: 'completed', completedSteps: 4, totalSteps: 4, enrolledRecordType: 'lead' });

    const outbox = await api.get(`/api/emails/?relatedTo=${lead.id}`);
    expect(outbox.body).toMatchObject({
      count: 1,
      results: [{ to: lead.email, subject: 'Welcome, Ada', mode: 'template', status: 'sent', relatedTo: lead.id }],
    });
    const tasks = await api.get(`/api/tasks/?relatedTo=${lead.id}`);
    expect(tasks.body.results).toEqual([
      expect.objectContaining({ name: 'Call Ada at Analytical Engines', assignedTo: owner.user.id, relatedTo: lead.id }),
    ]);
    const notifications = await api.get('/api/notifications/');
    expect(notifications.body.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          recipient: owner.user.id,
          relatedTo: lead.id,
          message: expect.stringMatching(/^New lead Ada Lovelace for Acme /),
        }),
      ]),
    );
    expect((await api.get(`/api/automations/rules/${rule.id}/`)).body.enrolledCount).toBe(1);
    const completed = await api.get(`/api/automations/rules/${rule.id}/logs/?status=completed`);
    expect(completed.body.count).toBe(1);
    await api.post(`/api/automations/rules/${rule.id}/deactivate/`);
  });

  it("treats a client's X-Request-Id as a plain id: one shaped like automation's own cause neither blocks a rule nor ends a chain", async () => {
    const rule = await activeRule({
      steps: [{ type: 'send_notification', order: 1, config: { recipients: ['assigned_user'], message: 'New lead {{lead.firstName}}' } }],
    });
    // automation:<depth>:<rules>:<log> is what the loop guard reads: this rule "caused" it, and a chain at its limit
    // (the gateway accepts letters, digits and ._:- in a request id).
    for (const forged of [`automation:1:${rule.id}:x`, 'automation:3:rul_a:y']) {
      leadSeq += 1;
      const created = await api.post(
        '/api/leads/',
        { firstName: 'Eve', email: `eve-${leadSeq}-${Date.now()}@example.com`, assignedTo: owner.user.id },
        { headers: { 'x-request-id': forged } },
      );
      expect(created.status).toBe(201);
      expect(created.headers['x-request-id']).toBe(forged); // still echoed, as a plain id
      await finishedLog(rule.id, created.body.id);
    }
    await api.post(`/api/automations/rules/${rule.id}/deactivate/`);
  });

  it('cancels an enrollment whose exit condition holds when its wait ends', async () => {
    const rule = await activeRule({
      triggerConditions: [{ field: 'company', operator: 'eq', value: 'Exit Co' }],
      exitConditions: [{ field: 'status', operator: 'eq', value: 'lost' }],
      steps: [
        { type: 'wait', order: 1, config: { duration: 2, unit: 'hours' } },
        { type: 'send_email', order: 2, config: { mode: 'template', templateId: 'lead_follow_up' } },
      ],
    });
    const lead = await createLead({ company: 'Exit Co' });
    await eventually('the enrollment', async () => (await logsFor(rule.id, lead.id)).length === 1);
    expect((await api.patch(`/api/leads/${lead.id}/`, { status: 'lost' })).status).toBe(200);
    const log = await finishedLog(rule.id, lead.id);
    expect(log).toMatchObject({ status: 'cancelled', completedSteps: 0 });
    expect(log.reason).toMatch(/status eq "lost"/);
    expect((await api.get(`/api/emails/?relatedTo=${lead.id}`)).body.count).toBe(0);
    await api.post(`/api/automations/rules/${rule.id}/deactivate/`);
  });

  it('fires a wait no earlier than its scaled delay', async () => {
    const rule = await activeRule({
      triggerConditions: [{ field: 'company', operator: 'eq', value: 'Wait Co' }],
      steps: [
        { type: 'wait', order: 1, config: { duration: 1, unit: 'hours' } },
        { type: 'send_notification', order: 2, config: { recipients: ['assigned_user'], message: 'Waited for {{lead.firstName}}' } },
      ],
    });
    const lead = await createLead({ company: 'Wait Co' });
    const pending = await eventually('the enrollment', async () => (await logsFor(rule.id, lead.id))[0]);
    expect(pending).toMatchObject({ status: 'in_progress', completedSteps: 0 });
    const log = await finishedLog(rule.id, lead.id);
    expect(log.status).toBe('completed');
    const waitedMs = Date.parse(log.steps[0].finishedAt) - Date.parse(log.startedAt);
    expect(waitedMs).toBeGreaterThanOrEqual(3_600 - 1_000); // second-resolution timestamps
    await api.post(`/api/automations/rules/${rule.id}/deactivate/`);
  });

  it('runs each pending step once across a restart of the automation workers', async () => {
    const rule = await activeRule({
      triggerConditions: [{ field: 'company', operator: 'eq', value: 'Restart Co' }],
      steps: [
        { type: 'wait', order: 1, config: { duration: 2, unit: 'hours' } },
        { type: 'send_notification', order: 2, config: { recipients: ['assigned_user'], message: 'After restart: {{lead.firstName}}' } },
        { type: 'send_email', order: 3, config: { mode: 'template', templateId: 'lead_follow_up' } },
      ],
    });
    const leads = [];
    for (let i = 0; i < 5; i++) leads.push(await createLead({ company: 'Restart Co' }));
    await eventually('five enrollments', async () => (await logsFor(rule.id)).length === 5);
    await cluster.cluster.restart('automation-worker-1');
    await cluster.cluster.restart('automation-worker-2');
    for (const lead of leads) expect((await finishedLog(rule.id, lead.id)).status).toBe('completed');
    const notifications = (await api.get('/api/notifications/?limit=100')).body.results.filter((n: any) =>
      n.message.startsWith('After restart'),
    );
    expect(notifications.map((n: any) => n.relatedTo).sort()).toEqual(leads.map((l) => l.id).sort());
    for (const lead of leads) expect((await api.get(`/api/emails/?relatedTo=${lead.id}`)).body.count).toBe(1);
    await api.post(`/api/automations/rules/${rule.id}/deactivate/`);
  });
});

describe('templates through the gateway', () => {
  it('lists the gallery with filters and installs an independent copy', async () => {
    const all = await api.get('/api/automations/templates/');
    expect(all.status).toBe(200);
    expect(all.body.count).toBeGreaterThanOrEqual(12);
    const filtered = await api.get('/api/automations/templates/?category=sales_pipeline&trigger=proposal_status_changed');
    expect(filtered.body.results.map((t: any) => t.id)).toEqual(['tmpl_proposal_follow_up']);
    const before = (await api.get('/api/automations/templates/tmpl_proposal_follow_up/')).body;
    expect(before).toMatchObject({ isBuiltIn: true, stepCount: 4, steps: expect.any(Array) });
    const installed = await api.post('/api/automations/templates/tmpl_proposal_follow_up/install/', {});
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({
      name: before.name,
      isActive: false,
      installedFromTemplateId: 'tmpl_proposal_follow_up',
      stepCount: 4,
    });
    expect((await api.get('/api/automations/templates/tmpl_proposal_follow_up/')).body.installCount).toBe(before.installCount + 1);
  });

  it('keeps a saved template visible to its workspace only', async () => {
    const rule = await api.post('/api/automations/rules/', {
      name: 'To save',
      trigger: 'contact_created',
      steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }],
    });
    expect((await api.post(`/api/automations/rules/${rule.body.id}/save-as-template/`, {})).status).toBe(422);
    const saved = await api.post(`/api/automations/rules/${rule.body.id}/save-as-template/`, { name: 'Ours', description: 'Team only' });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ name: 'Ours', category: 'custom', isBuiltIn: false });
    const stranger = await signUp(cluster.api);
    const theirs = cluster.api.withToken(stranger.access);
    expect((await theirs.get(`/api/automations/templates/${saved.body.id}/`)).status).toBe(404);
    expect((await theirs.get('/api/automations/templates/?category=custom')).body.count).toBe(0);
    expect((await api.get('/api/automations/templates/?category=custom')).body.results.map((t: any) => t.id)).toContain(saved.body.id);
  });
});

describe('rules and templates a page at a time', () => {
  it('pages the rules newest first, with links, and answers bad paging values with 400', async () => {
    const own = cluster.api.withToken((await signUp(cluster.api)).access);
    const made: string[] = [];
    for (const name of ['One', 'Two', 'Three']) {
      const rule = await own.post('/api/automations/rules/', {
        name,
        trigger: 'lead_created',
        steps: [{ type: 'wait', order: 1, config: { duration: 1, unit: 'days' } }],
      });
      made.push(rule.body.id);
    }
    const first = await own.get('/api/automations/rules/?limit=2');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['count', 'nextCursor', 'results']);
    expect(first.body.count).toBe(3);
    expect(first.body.results).toHaveLength(2);
    const second = await own.get('/api/automations/rules/?limit=2&page=2');
    expect(second.body).toMatchObject({ count: 3, nextCursor: null });
    expect([...first.body.results, ...second.body.results].map((r: any) => r.id).sort()).toEqual([...made].sort());
    for (const query of ['page=0', 'page=abc', 'limit=-1', 'page=1&offset=1']) {
      const response = await own.get(`/api/automations/rules/?${query}`);
      expect([query, response.status, typeof response.body.detail]).toEqual([query, 400, 'string']);
    }
  });

  it('pages the templates, built-in ones first, and answers bad paging values with 400', async () => {
    const all = await api.get('/api/automations/templates/?category=lead_management&limit=100');
    const ids = all.body.results.map((t: any) => t.id);
    const walked: string[] = [];
    const first = '/api/automations/templates/?category=lead_management&limit=2';
    for (let page = 1; ; page += 1) {
      const answer: any = await api.get(`${first}&page=${page}`);
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['count', 'nextCursor', 'results']);
      expect(answer.body.count).toBe(ids.length);
      walked.push(...answer.body.results.map((t: any) => t.id));
      if (walked.length >= ids.length) break;
    }
    expect(walked).toEqual(ids);
    expect((await api.get('/api/automations/templates/?page=0')).status).toBe(400);
    expect((await api.get('/api/automations/templates/?limit=abc')).status).toBe(400);
  });
});
