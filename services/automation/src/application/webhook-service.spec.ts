import type { BusMessage, MessageBus } from '@crm/bus';
import { DomainError } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import type { WebhookDuePayload } from './engine/webhook-messages';
import { automationCollections, webhookDeliveries, webhookSubscriptions } from '../store/collections';
import { createRepositories } from '../store/repositories';
import { PLAN_QUOTAS } from '@crm/vocabulary';
import { SECRET_OVERLAP_MS, WebhookService } from './webhook-service';

const caller = { workspaceId: 'ws_1' };

async function fieldErrors(call: Promise<unknown>): Promise<Record<string, string[]> | undefined> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return (error as DomainError).fields;
}

describe('WebhookService', () => {
  let store: DocumentStore;
  let published: Array<BusMessage<WebhookDuePayload>>;
  let service: WebhookService;

  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
    published = [];
    const bus = { publish: async (m: BusMessage) => void published.push(m as BusMessage<WebhookDuePayload>) } as unknown as MessageBus;
    service = new WebhookService(createRepositories(store), { allowPrivateTargets: false, bus });
  });

  afterEach(() => store.close());

  it('shows the secret on create only', async () => {
    const created = await service.create(caller, { url: 'https://hooks.example.com/', events: ['lead.created'] });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).not.toHaveProperty('secrets');
    expect(await service.get(caller, created.id)).not.toHaveProperty('secret');
    expect((await service.list(caller, {})).items[0]).not.toHaveProperty('secret');
  });

  it("refuses a subscription past the plan's quota with a 422 on url, in that workspace only", async () => {
    const starter = { workspaceId: 'ws_quota', plan: 'starter' };
    for (let i = 0; i < PLAN_QUOTAS.starter.webhookSubscriptions; i += 1)
      await service.create(starter, { url: `https://hooks.example.com/${i}`, events: ['lead.created'] });
    expect(await fieldErrors(service.create(starter, { url: 'https://hooks.example.com/over', events: ['lead.created'] }))).toEqual({
      url: [expect.stringContaining(`allows ${PLAN_QUOTAS.starter.webhookSubscriptions} webhook subscriptions`)],
    });
    await service.create({ ...starter, plan: 'growth' }, { url: 'https://hooks.example.com/growth', events: ['lead.created'] });
    await service.create(caller, { url: 'https://hooks.example.com/other', events: ['lead.created'] });
  });

  it('defaults to active and drops repeated event types', async () => {
    const created = await service.create(caller, { url: 'https://hooks.example.com/', events: ['lead.created', 'lead.created'] });
    expect(created).toMatchObject({ isActive: true, events: ['lead.created'] });
  });

  it('reports an unsafe url and unknown event types together, saving nothing', async () => {
    const fields = await fieldErrors(service.create(caller, { url: 'https://10.0.0.1/', events: ['lead.exploded'] }));
    expect(Object.keys(fields!).sort()).toEqual(['events', 'url']);
    expect(await store.forWorkspace('ws_1').count(webhookSubscriptions)).toBe(0);
  });

  it('requires at least one event type', async () => {
    expect(await fieldErrors(service.create(caller, { url: 'https://hooks.example.com/', events: [] }))).toHaveProperty('events');
  });

  it('keeps the previous secret signing for the overlap after a rotation, and only one previous secret', async () => {
    const created = await service.create(caller, { url: 'https://hooks.example.com/', events: ['lead.created'] });
    const second = await service.rotateSecret(caller, created.id);
    const third = await service.rotateSecret(caller, created.id);
    const stored = (await store.forWorkspace('ws_1').get(webhookSubscriptions, created.id))!;
    expect(stored.secrets.map((s) => s.value)).toEqual([third, second]);
    expect(stored.secrets[1]!.expiresAt! - Date.now()).toBeGreaterThan(SECRET_OVERLAP_MS - 60_000);
    expect(stored.secrets.map((s) => s.value)).not.toContain(created.secret);
  });

  it("does not touch another workspace's subscription", async () => {
    const created = await service.create(caller, { url: 'https://hooks.example.com/', events: ['lead.created'] });
    await expect(service.get({ workspaceId: 'ws_2' }, created.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(service.delete({ workspaceId: 'ws_2' }, created.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('queues a test event to the subscription, whatever its events', async () => {
    const created = await service.create(caller, { url: 'https://hooks.example.com/', events: ['lead.created'] });
    const eventId = await service.sendTest(caller, created.id, 'req_1');
    expect(published[0]!.payload).toMatchObject({
      subscriptionId: created.id,
      attempt: 1,
      envelope: { id: eventId, type: 'webhook.test' },
    });
  });

  it('redelivers with the same event id as the next attempt, by hand', async () => {
    const created = await service.create(caller, { url: 'https://hooks.example.com/', events: ['lead.created'] });
    const envelope = { id: 'evt_9', type: 'lead.created' as const, occurredAt: 'x', workspaceId: 'ws_1', data: {} };
    await store.forWorkspace('ws_1').insert(webhookDeliveries, {
      id: 'whd_1',
      workspaceId: 'ws_1',
      subscriptionId: created.id,
      eventId: 'evt_9',
      type: 'lead.created',
      attempt: 1,
      status: 'failed',
      responseStatus: 500,
      durationMs: 3,
      error: 'The receiver answered 500.',
      responseExcerpt: null,
      envelope,
      createdAt: new Date().toISOString(),
    });
    await service.redeliver(caller, created.id, 'whd_1', 'req_2');
    expect(published[0]!.payload).toMatchObject({ envelope, attempt: 2, manual: true });
    await expect(service.redeliver(caller, created.id, 'whd_nope', 'req_3')).rejects.toMatchObject({ kind: 'not_found' });
  });
});
