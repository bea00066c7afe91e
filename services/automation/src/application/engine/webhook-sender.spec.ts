import { createHmac } from 'node:crypto';
import type { BusMessage, MessageBus } from '@crm/bus';
import { createLogger } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import type { WebhookEnvelope, WebhookSubscriptionDocument } from '../../domain/webhook-model';
import { automationCollections, engineWorkspaces, webhookDeliveries, webhookSubscriptions } from '../../store/collections';
import { createRepositories } from '../../store/repositories';
import type { WebhookPostResult, WebhookTransport } from '../../adapters/webhook-transport';
import { subscriptionDocument } from '../../testing/webhook-subscription';
import { firstAttempt } from './webhook-fanout';
import type { WebhookDuePayload } from './webhook-messages';
import { WebhookRetryRecovery } from './webhook-retry-recovery';
import { BUSY_SUBSCRIPTION_DEFER_MS, SUBSCRIPTION_IN_FLIGHT, WebhookSender } from './webhook-sender';

class RecordingBus {
  readonly scheduled: Array<{ message: BusMessage<WebhookDuePayload>; delayMs: number }> = [];
  readonly published: BusMessage<WebhookDuePayload>[] = [];
  async schedule(message: BusMessage, delayMs: number): Promise<void> {
    this.scheduled.push({ message: message as BusMessage<WebhookDuePayload>, delayMs });
  }
  async publish(message: BusMessage): Promise<void> {
    this.published.push(message as BusMessage<WebhookDuePayload>);
  }
}

class ScriptedTransport implements WebhookTransport {
  readonly posts: Array<{ url: string; body: string; headers: Record<string, string> }> = [];
  answers: Array<Partial<WebhookPostResult>> = [];
  async post(url: string, body: string, headers: Record<string, string>): Promise<WebhookPostResult> {
    this.posts.push({ url, body, headers });
    const answer = this.answers.shift() ?? { status: 200 };
    const status = answer.status ?? null;
    const ok = status !== null && status >= 200 && status < 300;
    return { status, durationMs: 5, excerpt: 'ok', error: ok ? null : `The receiver answered ${status}.`, ...answer };
  }
}

const schedule = { firstDelayMs: 1_000, maxDelayMs: 8_000, horizonMs: 60_000 };
const envelope: WebhookEnvelope = {
  id: 'evt_1',
  type: 'lead.created',
  occurredAt: '2026-11-24T05:00:00.000Z',
  workspaceId: 'ws_1',
  data: { recordType: 'lead', record: { id: 'ld_1' } },
};

describe('WebhookSender', () => {
  let store: DocumentStore;
  let bus: RecordingBus;
  let transport: ScriptedTransport;
  let sender: WebhookSender;

  async function subscription(overrides: Partial<WebhookSubscriptionDocument> = {}): Promise<WebhookSubscriptionDocument> {
    return store.forWorkspace('ws_1').insert(webhookSubscriptions, subscriptionDocument(overrides));
  }

  const log = () => store.forWorkspace('ws_1').find(webhookDeliveries, {});
  const current = () => store.forWorkspace('ws_1').get(webhookSubscriptions, 'whk_1');

  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
    bus = new RecordingBus();
    transport = new ScriptedTransport();
    sender = new WebhookSender(
      createRepositories(store),
      bus as unknown as MessageBus,
      transport,
      schedule,
      createLogger('test', { level: 'silent' }),
    );
  });

  afterEach(() => store.close());

  it('posts the envelope as the body, with the event id and a signature of the current secret', async () => {
    await subscription();
    await sender.handle(firstAttempt(envelope, 'whk_1', 'req_1', new Date()));
    const [post] = transport.posts;
    expect(JSON.parse(post!.body)).toEqual(envelope);
    expect(post!.headers['x-crm-event-id']).toBe('evt_1');
    const t = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(post!.headers['x-crm-signature']!)!;
    expect(t[2]).toBe(createHmac('sha256', 'whsec_current').update(`${t[1]}.${post!.body}`).digest('hex'));
    expect((await log()).map((d) => [d.attempt, d.status])).toEqual([[1, 'delivered']]);
  });

  it('lets a hanging receiver hold only its share of the slots: its further attempts wait, other subscriptions are posted at once', async () => {
    await subscription();
    await subscription({ id: 'whk_2', url: 'https://other.example.com/crm' });
    const release: Array<() => void> = [];
    const hanging: WebhookTransport = {
      post: (url, body, headers) =>
        url.startsWith('https://hooks.')
          ? new Promise((resolve) => release.push(() => resolve({ status: 200, durationMs: 10_000, excerpt: '', error: null })))
          : transport.post(url, body, headers),
    };
    sender = new WebhookSender(
      createRepositories(store),
      bus as unknown as MessageBus,
      hanging,
      schedule,
      createLogger('test', { level: 'silent' }),
    );
    const events = Array.from({ length: SUBSCRIPTION_IN_FLIGHT + 2 }, (_, i) =>
      firstAttempt({ ...envelope, id: `evt_h${i}` }, 'whk_1', 'req', new Date()),
    );
    const handled = events.map((message) => sender.handle(message));
    await new Promise((resolve) => setImmediate(resolve));
    await sender.handle(firstAttempt(envelope, 'whk_2', 'req', new Date()));
    // The other subscription was posted while the first's receiver still hangs.
    expect(transport.posts.map((p) => p.url)).toEqual(['https://other.example.com/crm']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(release).toHaveLength(SUBSCRIPTION_IN_FLIGHT);
    expect(bus.scheduled.map((s) => [s.message.id, s.delayMs])).toEqual(
      events.slice(SUBSCRIPTION_IN_FLIGHT).map((m) => [m.id, BUSY_SUBSCRIPTION_DEFER_MS]),
    );
    for (const done of release) done();
    await Promise.all(handled);
    expect((await log()).filter((d) => d.subscriptionId === 'whk_1')).toHaveLength(SUBSCRIPTION_IN_FLIGHT);
  });

  it('signs with a rotated-out secret until it expires, and not after', async () => {
    await subscription({
      secrets: [
        { value: 'whsec_new', expiresAt: null },
        { value: 'whsec_old', expiresAt: Date.now() + 60_000 },
        { value: 'whsec_older', expiresAt: Date.now() - 1 },
      ],
    });
    await sender.handle(firstAttempt(envelope, 'whk_1', 'req_1', new Date()));
    expect(transport.posts[0]!.headers['x-crm-signature']!.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
  });

  it('schedules the next attempt after a failure, keeping the event and counting the attempt', async () => {
    await subscription();
    transport.answers = [{ status: 500 }];
    await sender.handle(firstAttempt(envelope, 'whk_1', 'req_1', new Date()));
    expect(bus.scheduled).toHaveLength(1);
    expect(bus.scheduled[0]!.delayMs).toBe(1_000);
    expect(bus.scheduled[0]!.message.payload).toMatchObject({ attempt: 2, envelope, firstAttemptAt: expect.any(Number) });
    expect((await log()).map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([[1, 'failed', 500]]);
  });

  it('brings back from the store a retry the bus lost, once it is clearly overdue, and only until it runs', async () => {
    await subscription();
    transport.answers = [{ status: 500 }];
    const recovery = new WebhookRetryRecovery(createRepositories(store), bus as unknown as MessageBus, 5_000);
    await sender.handle(firstAttempt(envelope, 'whk_1', 'req_1', new Date()));
    // The scheduled retry (attempt 2, due in 1 s) is lost with the broker node holding the delay queues.
    const [lost] = bus.scheduled.splice(0);
    const now = Date.now();
    expect(await recovery.recover('ws_1', now + 1_000, 100)).toBe(0);
    expect(await recovery.recover('ws_1', now + 7_000, 100)).toBe(1);
    expect(bus.published.map((m) => [m.id, m.payload.attempt, m.payload.firstAttemptAt])).toEqual([
      [lost!.message.id, 2, lost!.message.payload.firstAttemptAt],
    ]);
    // Not published again while the recovered message is on its way.
    expect(await recovery.recover('ws_1', now + 8_000, 100)).toBe(0);

    await sender.handle(bus.published[0]!);
    expect((await log()).map((d) => [d.attempt, d.status]).sort()).toEqual([
      [1, 'failed'],
      [2, 'delivered'],
    ]);
    expect(await recovery.recover('ws_1', now + 3_600_000, 100)).toBe(0);
    expect(bus.published).toHaveLength(1);
    expect(await store.global().get(engineWorkspaces, 'ws_1')).not.toBeNull();
  });

  it('does not make an attempt again when its message comes again after it was logged', async () => {
    await subscription();
    const message = firstAttempt(envelope, 'whk_1', 'req_1', new Date());
    await sender.handle(message);
    await sender.handle(message);
    expect(transport.posts).toHaveLength(1);
  });

  it('gives up past the horizon and marks the subscription failing, saying why; a later delivery clears it', async () => {
    await subscription();
    transport.answers = [{ status: 503 }];
    const late: BusMessage<WebhookDuePayload> = firstAttempt(envelope, 'whk_1', 'req_1', new Date());
    late.payload = { ...late.payload, attempt: 9, firstAttemptAt: Date.now() - 61_000 };
    await sender.handle(late);
    expect(bus.scheduled).toEqual([]);
    expect((await current())!.failingReason).toBe(
      'Event evt_1 (lead.created) was not delivered after 9 attempts: The receiver answered 503.',
    );
    await sender.handle(firstAttempt({ ...envelope, id: 'evt_2' }, 'whk_1', 'req_2', new Date()));
    expect((await current())!.failingReason).toBeNull();
  });

  it('sends nothing to an inactive subscription, except a test event', async () => {
    await subscription({ isActive: false });
    await sender.handle(firstAttempt(envelope, 'whk_1', 'req_1', new Date()));
    expect(transport.posts).toEqual([]);
    await sender.handle(firstAttempt({ ...envelope, id: 'evt_t', type: 'webhook.test' }, 'whk_1', 'req_2', new Date()));
    expect(transport.posts).toHaveLength(1);
  });

  it('does not retry a redelivery asked for by hand', async () => {
    await subscription();
    transport.answers = [{ status: 500 }];
    const manual = firstAttempt(envelope, 'whk_1', 'req_1', new Date());
    manual.payload = { ...manual.payload, manual: true, attempt: 3 };
    await sender.handle(manual);
    expect(bus.scheduled).toEqual([]);
    expect((await log()).map((d) => [d.attempt, d.status])).toEqual([[3, 'failed']]);
  });
});
