/**
 * Fan-out: a records event becomes one delivery message per active subscription of its workspace
 * that asked for its type. The message id derives from (event, subscription), so a redelivered
 * records event makes the same messages, and the sender's log keyed on them delivers each once.
 */
import { type BusMessage, type MessageBus } from '@crm/bus';
import type { WebhookEnvelope, WebhookSubscriptionDocument } from '../../domain/webhook-model';
import { messageWorkspaceId } from '../../domain/triggers';
import { webhookEventsFor, systemClock, type Clock } from '@crm/vocabulary';
import type { WebhookRepository } from '../../store/webhook-repository';
import { attemptMessageId, WEBHOOK_DUE_TYPE, type WebhookDuePayload } from './webhook-messages';

/** The first attempt's message of one event to one subscription. */
export function firstAttempt(
  envelope: WebhookEnvelope,
  subscriptionId: string,
  correlationId: string,
  now: Date,
): BusMessage<WebhookDuePayload> {
  return {
    id: attemptMessageId(envelope.id, subscriptionId, 1),
    type: WEBHOOK_DUE_TYPE,
    correlationId,
    occurredAt: now.toISOString(),
    payload: { workspaceId: envelope.workspaceId, subscriptionId, envelope, attempt: 1, firstAttemptAt: null, manual: false },
  };
}

export class WebhookFanout {
  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly bus: MessageBus,
    private readonly clock: Clock = systemClock,
  ) {}

  async handle(message: BusMessage): Promise<void> {
    // One read of a workspace's subscriptions per message: an import batch's message stands for
    // hundreds of contact.created events of the same workspace.
    const subscriptions = new Map<string, Promise<WebhookSubscriptionDocument[]>>();
    const activeIn = (workspaceId: string) => {
      let read = subscriptions.get(workspaceId);
      if (!read) {
        read = this.webhooks.active(workspaceId);
        subscriptions.set(workspaceId, read);
      }
      return read;
    };
    // A message's events all belong to the workspace its payload names: when nobody there
    // subscribes, its envelopes (a hashed id each) are not worth making.
    const workspaceId = messageWorkspaceId(message);
    if (workspaceId && (await activeIn(workspaceId)).length === 0) return;
    for (const envelope of webhookEventsFor(message)) {
      const active = await activeIn(envelope.workspaceId);
      for (const subscription of active) {
        if (!subscription.events.includes(envelope.type)) continue;
        // Mandatory: with the deliveries queue not declared yet (a fresh install) the event fails and
        // comes again, instead of its attempts vanishing.
        await this.bus.publish(firstAttempt(envelope, subscription.id, message.correlationId, this.clock()), { mandatory: true });
      }
    }
  }
}
