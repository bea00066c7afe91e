/**
 * Outbound webhooks across the local cluster: records events through RabbitMQ to the automation
 * workers, signed POSTs to a receiver this suite runs, retries after 500s and time-outs on a
 * shortened schedule (the first retry after 0.5 s, giving up after 8 s), a receiver that is down
 * for a while, secret rotation, redelivery, and the subscription marked failing. A second cluster,
 * without WEBHOOK_ALLOW_PRIVATE_TARGETS, refuses every unsafe target at save time.
 */
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { peopleCsv, uploadCsv } from '../import/import-support';
import { liftRateLimit } from '../support/operator-cli';
import { signedWith, WebhookReceiver, type ReceivedHook } from './webhook-receiver';
import { eventually } from '../support/eventually';

jest.setTimeout(120_000);

let open: TestCluster;
let strict: TestCluster;
let api: ApiClient;
let owner: SignedUp;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  await receiver.start();
  [open, strict] = await Promise.all([
    startTestCluster({
      gateways: 1,
      workers: 1,
      env: {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_FIRST_MS: '500',
        WEBHOOK_RETRY_MAX_MS: '2000',
        WEBHOOK_RETRY_HORIZON_MS: '8000',
        WEBHOOK_TIMEOUT_MS: '1500',
      },
    }),
    startTestCluster({ gateways: 1, workers: 0 }),
  ]);
  owner = await signUp(open.api);
  await liftRateLimit(open.cluster, owner.user.workspaceId);
  api = open.api.withToken(owner.access);
}, 60_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await Promise.all([open?.stop(), strict?.stop()]);
  await receiver.stop();
});

async function subscribe(url: string, events: string[]): Promise<{ id: string; secret: string }> {
  const created = await api.post('/api/settings/webhooks/', { url, events });
  expect(created.status).toBe(201);
  return created.body;
}

let leadSeq = 0;
async function createLead(): Promise<{ id: string }> {
  leadSeq += 1;
  const response = await api.post('/api/leads/', {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: `ada-${leadSeq}-${Date.now()}@example.com`,
    company: 'Analytical Engines',
  });
  expect(response.status).toBe(201);
  return response.body;
}

async function deliveries(webhookId: string): Promise<any[]> {
  const response = await api.get(`/api/settings/webhooks/${webhookId}/deliveries/?limit=100`);
  expect(response.status).toBe(200);
  return response.body.results;
}

describe('webhook subscriptions', () => {
  it('shows the secret once: never in a list or a read, and never to an API key', async () => {
    const created = await subscribe(receiver.url('/crud'), ['contact.created', 'lead.converted']);
    expect(created.secret).toMatch(/^whsec_/);
    const read = await api.get(`/api/settings/webhooks/${created.id}/`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: created.id, events: ['contact.created', 'lead.converted'], isActive: true, failingReason: null });
    expect(read.body).not.toHaveProperty('secret');
    const list = await api.get('/api/settings/webhooks/');
    expect(list.body.results.map((w: any) => w.id)).toContain(created.id);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
  });

  it('lets an API key read subscriptions but not create one', async () => {
    const key = await api.post('/api/settings/api-keys/', { name: 'integration' });
    expect(key.status).toBe(201);
    const asKey = open.api.withToken(key.body.key);
    expect((await asKey.get('/api/settings/webhooks/')).status).toBe(200);
    const refused = await asKey.post('/api/settings/webhooks/', { url: receiver.url('/key'), events: ['lead.created'] });
    expect(refused.status).toBe(403);
  });

  it('refuses unknown event types on events', async () => {
    const refused = await api.post('/api/settings/webhooks/', { url: receiver.url('/x'), events: ['lead.created', 'lead.exploded'] });
    expect(refused.status).toBe(422);
    expect(refused.body.events[0]).toMatch(/lead\.exploded/);
  });
});

describe('deliveries', () => {
  it('posts a created lead as a signed envelope the receiver can verify', async () => {
    const hook = await subscribe(receiver.url('/leads'), ['lead.created']);
    const lead = await createLead();
    const got = await eventually('the lead.created delivery', () => receiver.on('/leads').find((r) => r.body.data.record?.id === lead.id));
    expect(got.body).toEqual({
      id: got.eventId,
      type: 'lead.created',
      occurredAt: expect.any(String),
      workspaceId: owner.user.workspaceId,
      data: expect.objectContaining({ recordType: 'lead', record: expect.objectContaining({ id: lead.id }) }),
    });
    expect(got.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(signedWith(got.signature, got.rawBody, hook.secret)).toBe(true);
    expect(signedWith(got.signature, got.rawBody, 'whsec_someone_else')).toBe(false);
  });

  it('posts account creation and deletion, the deleted one carrying the account as it was', async () => {
    await subscribe(receiver.url('/accounts'), ['account.created', 'account.deleted']);
    const account = await api.post('/api/accounts/', { name: 'Hooked Ltd' });
    expect(account.status).toBe(201);
    expect((await api.delete(`/api/accounts/${account.body.id}/`)).status).toBe(204);
    const got = await eventually('both account events', () => {
      const mine = receiver.on('/accounts').filter((r) => r.body.data.record?.id === account.body.id);
      return mine.length === 2 && mine;
    });
    expect(got.map((r) => r.body.type).sort()).toEqual(['account.created', 'account.deleted']);
    expect(got.find((r) => r.body.type === 'account.deleted')!.body.data.record.name).toBe('Hooked Ltd');
  });

  it('posts automation.run_failed when a run of a rule fails', async () => {
    await subscribe(receiver.url('/runs'), ['automation.run_failed']);
    // No AI provider is configured: an ai_generated email step fails, saying so.
    const rule = await api.post('/api/automations/rules/', {
      name: 'Fails',
      trigger: 'lead_created',
      steps: [{ type: 'send_email', order: 1, config: { mode: 'ai_generated', prompt: 'Write a short welcome.' } }],
    });
    expect(rule.status).toBe(201);
    expect((await api.post(`/api/automations/rules/${rule.body.id}/activate/`)).status).toBe(200);
    const lead = await createLead();
    try {
      const got = await eventually('the run_failed event', () => receiver.on('/runs').find((r) => r.body.data.recordId === lead.id));
      expect(got.body).toMatchObject({
        type: 'automation.run_failed',
        workspaceId: owner.user.workspaceId,
        data: { ruleId: rule.body.id, recordType: 'lead', reason: expect.any(String) },
      });
    } finally {
      await api.post(`/api/automations/rules/${rule.body.id}/deactivate/`);
    }
  });

  it('posts import.completed with the counts when an import ends', async () => {
    await subscribe(receiver.url('/imports'), ['import.completed', 'import.failed']);
    const uid = await uploadCsv(open.api, owner.access, peopleCsv(3, `hooked-${Date.now()}`));
    const got = await eventually('the import.completed event', () => receiver.on('/imports').find((r) => r.body.data.jobUid === uid));
    expect(got.body).toMatchObject({
      type: 'import.completed',
      workspaceId: owner.user.workspaceId,
      data: { status: 'complete', totalRows: 3, successCount: 3, errorCount: 0 },
    });
  });

  it('retries after a 500 and logs one item per attempt with the same event id', async () => {
    receiver.script('/flaky', (nth) => (nth === 1 ? 500 : 200));
    const hook = await subscribe(receiver.url('/flaky'), ['lead.created']);
    const test = await api.post(`/api/settings/webhooks/${hook.id}/test/`);
    expect(test.status).toBe(202);
    const log = await eventually('a delivered attempt after the failed one', async () => {
      const items = await deliveries(hook.id);
      return items.some((d) => d.status === 'delivered') && items;
    });
    expect(log.map((d: any) => [d.attempt, d.status, d.responseStatus]).sort()).toEqual([
      [1, 'failed', 500],
      [2, 'delivered', 200],
    ]);
    expect(new Set(log.map((d: any) => d.eventId))).toEqual(new Set([test.body.eventId]));
    expect(log.find((d: any) => d.attempt === 1).responseExcerpt).toBe('not now');
    expect(receiver.on('/flaky').map((r) => r.body.type)).toEqual(['webhook.test', 'webhook.test']);
  });

  it('retries after a time-out', async () => {
    receiver.script('/slow', (nth) => (nth === 1 ? 'hang' : 200));
    const hook = await subscribe(receiver.url('/slow'), ['lead.created']);
    await api.post(`/api/settings/webhooks/${hook.id}/test/`);
    const log = await eventually('a delivered attempt after the timed-out one', async () => {
      const items = await deliveries(hook.id);
      return items.some((d) => d.status === 'delivered') && items;
    });
    const first = log.find((d: any) => d.attempt === 1);
    expect(first).toMatchObject({ status: 'failed', responseStatus: null, error: expect.stringMatching(/No answer within 1500 ms/) });
  });

  it('delivers everything once each to a receiver that was down for a while', async () => {
    const late = new WebhookReceiver();
    await late.start();
    const port = late.port;
    await late.stop();
    const hook = await subscribe(`http://127.0.0.1:${port}/late`, ['lead.created']);
    const leads = [await createLead(), await createLead(), await createLead()];
    await eventually('two failed attempts of every event while the receiver is down', async () => {
      const items = await deliveries(hook.id);
      const failures = new Map<string, number>();
      for (const d of items) if (d.status === 'failed') failures.set(d.eventId, (failures.get(d.eventId) ?? 0) + 1);
      return failures.size === leads.length && [...failures.values()].every((n) => n >= 2);
    });
    await late.start(port);
    try {
      const got = await eventually('every lead at the receiver', () => {
        const ids = new Set(late.received.map((r: ReceivedHook) => r.body.data.record.id));
        return leads.every((l) => ids.has(l.id));
      });
      expect(got).toBe(true);
      const items = await eventually('the log to show each event delivered', async () => {
        const all = await deliveries(hook.id);
        return all.filter((d) => d.status === 'delivered').length === leads.length && all;
      });
      const deliveredEvents = items.filter((d: any) => d.status === 'delivered').map((d: any) => d.eventId);
      expect(new Set(deliveredEvents).size).toBe(leads.length);
      expect(late.received.map((r) => r.eventId).sort()).toEqual([...deliveredEvents].sort());
    } finally {
      await late.stop();
    }
  });

  it('marks the subscription failing, saying why, when retries run out', async () => {
    const dead = new WebhookReceiver();
    await dead.start();
    const port = dead.port;
    await dead.stop();
    const hook = await subscribe(`http://127.0.0.1:${port}/dead`, ['lead.created']);
    await api.post(`/api/settings/webhooks/${hook.id}/test/`);
    const failing = await eventually('the subscription to be marked failing', async () => {
      const read = await api.get(`/api/settings/webhooks/${hook.id}/`);
      return read.body.failingReason && read.body;
    });
    expect(failing.failingReason).toMatch(/was not delivered after \d+ attempts: Could not deliver/);
    const log = await deliveries(hook.id);
    expect(log.length).toBeGreaterThanOrEqual(4);
    expect(log.every((d: any) => d.status === 'failed')).toBe(true);
  });

  it('signs with both secrets during a rotation', async () => {
    const hook = await subscribe(receiver.url('/rotate'), ['lead.created']);
    const rotated = await api.post(`/api/settings/webhooks/${hook.id}/rotate-secret/`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const test = await api.post(`/api/settings/webhooks/${hook.id}/test/`);
    const got = await eventually('the test event', () => receiver.on('/rotate').find((r) => r.eventId === test.body.eventId));
    expect(got.signature.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(signedWith(got.signature, got.rawBody, rotated.body.secret)).toBe(true);
    expect(signedWith(got.signature, got.rawBody, hook.secret)).toBe(true);
  });

  it('redelivers a logged attempt with the same event id', async () => {
    const hook = await subscribe(receiver.url('/again'), ['lead.created']);
    const test = await api.post(`/api/settings/webhooks/${hook.id}/test/`);
    const [first] = await eventually('the first delivery', async () => {
      const items = await deliveries(hook.id);
      return items.length > 0 && items;
    });
    const redelivered = await api.post(`/api/settings/webhooks/${hook.id}/deliveries/${first.id}/redeliver/`);
    expect(redelivered.status).toBe(202);
    await eventually('the second request', () => receiver.on('/again').length === 2);
    expect(receiver.on('/again').map((r) => r.eventId)).toEqual([test.body.eventId, test.body.eventId]);
    const log = await eventually('the redelivery in the log', async () => {
      const items = await deliveries(hook.id);
      return items.length === 2 && items;
    });
    expect(log.map((d: any) => d.attempt).sort()).toEqual([1, 2]);
  });
});

describe('unsafe targets (WEBHOOK_ALLOW_PRIVATE_TARGETS unset)', () => {
  let strictApi: ApiClient;

  beforeAll(async () => {
    const admin = await signUp(strict.api);
    await liftRateLimit(strict.cluster, admin.user.workspaceId);
    strictApi = strict.api.withToken(admin.access);
  });

  it.each([
    'http://hooks.example.com/',
    'https://127.0.0.1/',
    'https://localhost/',
    'https://2130706433/',
    'https://0x7f.1/',
    'https://127.1/',
    'https://[::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://10.1.2.3/',
    'https://172.20.0.1/',
    'https://192.168.0.10/',
    'https://169.254.169.254/latest/meta-data/',
    'https://metadata.google.internal/',
    'https://[fd00:ec2::254]/',
    'https://[fe80::1]/',
    'https://0.0.0.0/',
  ])('refuses %s with 422 on url', async (url) => {
    const refused = await strictApi.post('/api/settings/webhooks/', { url, events: ['lead.created'] });
    expect(refused.status).toBe(422);
    expect(refused.body.url).toHaveLength(1);
  });

  it('accepts a public https URL', async () => {
    const created = await strictApi.post('/api/settings/webhooks/', { url: 'https://hooks.example.com/crm', events: ['lead.created'] });
    expect(created.status).toBe(201);
  });

  it('refuses an unsafe URL on update too, changing nothing', async () => {
    const created = await strictApi.post('/api/settings/webhooks/', { url: 'https://hooks.example.com/a', events: ['lead.created'] });
    const refused = await strictApi.patch(`/api/settings/webhooks/${created.body.id}/`, { url: 'https://[::ffff:a9fe:a9fe]/' });
    expect(refused.status).toBe(422);
    expect((await strictApi.get(`/api/settings/webhooks/${created.body.id}/`)).body.url).toBe('https://hooks.example.com/a');
  });
});
