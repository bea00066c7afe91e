import { InProcessBus, UnroutableMessageError, type BusMessage, type MessageBus } from '@crm/bus';
import { createLogger } from '@crm/observability';
import { openStore, type DocumentStore } from '@crm/store';
import type { WebhookSubscriptionDocument } from '../../domain/webhook-model';
import { automationCollections, webhookSubscriptions } from '../../store/collections';
import { WebhookRepository } from '../../store/webhook-repository';
import { subscriptionDocument } from '../../testing/webhook-subscription';
import { WebhookFanout } from './webhook-fanout';
import { WEBHOOK_DELIVERIES_QUEUE, type WebhookDuePayload } from './webhook-messages';

class RecordingBus {
  readonly published: BusMessage<WebhookDuePayload>[] = [];
  async publish(message: BusMessage): Promise<void> {
    this.published.push(message as BusMessage<WebhookDuePayload>);
  }
}

function contactsCreated(count: number): BusMessage {
  return {
    id: 'evt_batch',
    type: 'records.contacts_created.v1',
    correlationId: 'imp_1',
    occurredAt: '2026-11-24T05:00:00.000Z',
    payload: {
      workspaceId: 'ws_1',
      events: Array.from({ length: count }, (_, i) => ({
        recordType: 'contact',
        recordId: `con_${i}`,
        record: { id: `con_${i}`, email: `c${i}@example.com` },
      })),
    },
  };
}

describe('WebhookFanout', () => {
  let store: DocumentStore;
  let bus: RecordingBus;

  async function subscription(overrides: Partial<WebhookSubscriptionDocument>): Promise<void> {
    await store.forWorkspace('ws_1').insert(webhookSubscriptions, subscriptionDocument({ events: ['contact.created'], ...overrides }));
  }

  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: automationCollections });
    bus = new RecordingBus();
  });

  afterEach(() => store.close());

  it("sends each contact of a batch event to every active subscription that asked for it, reading the workspace's subscriptions once", async () => {
    await subscription({ id: 'whk_1' });
    await subscription({ id: 'whk_2', url: 'https://other.example.com/crm' });
    await subscription({ id: 'whk_leads', events: ['lead.created'] });
    await subscription({ id: 'whk_off', isActive: false });
    const scoped = store.forWorkspace('ws_1');
    const find = jest.spyOn(scoped, 'find');
    jest.spyOn(store, 'forWorkspace').mockReturnValue(scoped);

    await new WebhookFanout(new WebhookRepository(store), bus as unknown as MessageBus).handle(contactsCreated(3));

    expect(find).toHaveBeenCalledTimes(1);
    const sent = bus.published.map((m) => [m.payload.subscriptionId, (m.payload.envelope.data.record as { id: string }).id]);
    expect(sent.sort()).toEqual(
      [
        ['whk_1', 'con_0'],
        ['whk_1', 'con_1'],
        ['whk_1', 'con_2'],
        ['whk_2', 'con_0'],
        ['whk_2', 'con_1'],
        ['whk_2', 'con_2'],
      ].sort(),
    );
    expect(new Set(bus.published.map((m) => m.id)).size).toBe(6);
  });

  it('sends nothing when the workspace has no subscription for the event', async () => {
    await subscription({ events: ['lead.created'] });
    await new WebhookFanout(new WebhookRepository(store), bus as unknown as MessageBus).handle(contactsCreated(2));
    expect(bus.published).toEqual([]);
  });
  it('fails (so the event comes again) rather than drop a first attempt no deliveries queue takes', async () => {
    await subscription({ id: 'whk_1' });
    const inProcess = new InProcessBus(createLogger('test', { level: 'silent' }));
    try {
      const fanout = new WebhookFanout(new WebhookRepository(store), inProcess);
      await expect(fanout.handle(contactsCreated(1))).rejects.toBeInstanceOf(UnroutableMessageError);
      const attempts: BusMessage[] = [];
      await inProcess.consume(WEBHOOK_DELIVERIES_QUEUE, async (message) => {
        attempts.push(message);
      });
      await fanout.handle(contactsCreated(1));
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(attempts).toHaveLength(1);
    } finally {
      await inProcess.close();
    }
  });
});
