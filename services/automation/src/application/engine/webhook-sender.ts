/**
 * One delivery attempt: sign, POST, log the attempt, and on failure schedule the next attempt as a
 * new message (the subscription's own backoff, not the bus's), until the retry horizon has passed;
 * then the subscription is marked failing with the reason. At least once: an attempt whose message
 * comes again after it was logged is not made twice, but one cut short before the log is.
 *
 * A failed attempt's log row also records its retry until that retry begins, so a retry the bus
 * loses (its delay queues are classic queues, gone with a broker node) is scheduled again from the
 * store by the sweep (webhook-retry-recovery.ts).
 */
import { apiTimestamp, systemClock, type Clock } from '@crm/vocabulary';
import type { BusMessage, MessageBus } from '@crm/bus';
import type { Logger } from '@crm/observability';
import { derivedId, ID_PREFIX } from '../../domain/ids';
import type { WebhookDeliveryDocument, WebhookSubscriptionDocument } from '../../domain/webhook-model';
import { nextRetryDelayMs, type WebhookRetrySchedule } from '../../domain/webhook-retry';
import { signatureHeader } from '../../domain/webhook-signature';
import type { AutomationRepositories } from '../../store/repositories';
import type { WebhookPostResult, WebhookTransport } from '../../adapters/webhook-transport';
import { webhookAttempts, webhookFailures, webhookLagSeconds } from './webhook-metrics';
import { attemptMessageId, WEBHOOK_DUE_TYPE, type WebhookDuePayload } from './webhook-messages';

/** The secrets that sign now: the current one and any rotated-out one still in its overlap. */
export function signingSecrets(subscription: WebhookSubscriptionDocument, now: number): string[] {
  return subscription.secrets.filter((secret) => secret.expiresAt === null || secret.expiresAt > now).map((secret) => secret.value);
}

/** Attempts one subscription may have under way on one worker (see WebhookSender.handle). */
export const SUBSCRIPTION_IN_FLIGHT = 4;
/** How long an attempt over that share waits before it is offered again. */
export const BUSY_SUBSCRIPTION_DEFER_MS = 1_000;

/** The message of a delivery's attempt `attempt` (not a manual redelivery): its id derives from the event, subscription and attempt. */
export function attemptMessage(
  due: Pick<WebhookDuePayload, 'workspaceId' | 'subscriptionId' | 'envelope'>,
  attempt: number,
  firstAttemptAt: number | null,
  correlationId: string,
  now: Date,
): BusMessage<WebhookDuePayload> {
  return {
    id: attemptMessageId(due.envelope.id, due.subscriptionId, attempt),
    type: WEBHOOK_DUE_TYPE,
    correlationId,
    occurredAt: now.toISOString(),
    payload: {
      workspaceId: due.workspaceId,
      subscriptionId: due.subscriptionId,
      envelope: due.envelope,
      attempt,
      firstAttemptAt,
      manual: false,
    },
  };
}

/** The log row of an attempt's message. */
export function deliveryIdOf(messageId: string): string {
  return derivedId(ID_PREFIX.webhookDelivery, messageId);
}

export class WebhookSender {
  private readonly inFlight = new Map<string, number>();
  /** Workspaces known to the sweep (engine_workspaces), so it looks for their lost retries. */
  private readonly registered = new Set<string>();

  constructor(
    private readonly repositories: Pick<AutomationRepositories, 'webhooks' | 'deliveries' | 'engineWorkspaces'>,
    private readonly bus: MessageBus,
    private readonly transport: WebhookTransport,
    private readonly schedule: WebhookRetrySchedule,
    private readonly logger: Logger,
    private readonly perSubscription = SUBSCRIPTION_IN_FLIGHT,
    private readonly clock: Clock = systemClock,
  ) {}

  async handle(message: BusMessage): Promise<void> {
    const due = message.payload as WebhookDuePayload;
    const { webhooks, deliveries } = this.repositories;
    const deliveryId = deliveryIdOf(message.id);
    if (await deliveries.get(due.workspaceId, deliveryId)) return this.retryArrived(message, due);
    if (await this.erasedRetry(due)) return this.retryArrived(message, due);
    const subscription = await webhooks.get(due.workspaceId, due.subscriptionId);
    // Deleted, or switched off since: an inactive subscription receives nothing (a test event or a redelivery asked for still goes).
    if (!subscription) return this.retryArrived(message, due);
    if (!subscription.isActive && !due.manual && due.envelope.type !== 'webhook.test') return this.retryArrived(message, due);

    // A slow or hanging receiver holds at most a few of the worker's delivery slots: its further
    // attempts wait outside them (the same message, offered again shortly), so other subscriptions'
    // deliveries keep their pace.
    const busy = this.inFlight.get(subscription.id) ?? 0;
    if (busy >= this.perSubscription) {
      await this.bus.schedule(message, BUSY_SUBSCRIPTION_DEFER_MS);
      return;
    }
    this.inFlight.set(subscription.id, busy + 1);
    try {
      await this.retryArrived(message, due);
      await this.attempt(message, due, subscription);
    } finally {
      const left = (this.inFlight.get(subscription.id) ?? 1) - 1;
      if (left > 0) this.inFlight.set(subscription.id, left);
      else this.inFlight.delete(subscription.id);
    }
  }

  private async attempt(message: BusMessage, due: WebhookDuePayload, subscription: WebhookSubscriptionDocument): Promise<void> {
    const deliveryId = derivedId(ID_PREFIX.webhookDelivery, message.id);
    const startedAt = this.clock().getTime();
    const body = JSON.stringify(due.envelope);
    const result = await this.transport.post(subscription.url, body, {
      'user-agent': 'CRM-Webhooks/1',
      'x-crm-event-id': due.envelope.id,
      'x-crm-signature': signatureHeader(body, signingSecrets(subscription, startedAt), Math.floor(startedAt / 1000)),
    });
    const delivered = result.error === null;
    webhookAttempts.inc({ outcome: delivered ? 'delivered' : 'failed' });
    const occurred = Date.parse(due.envelope.occurredAt);
    if (delivered && Number.isFinite(occurred)) webhookLagSeconds.observe(Math.max(0, this.clock().getTime() - occurred) / 1000);

    let givenUp: string | null = null;
    let retry: Pick<WebhookDeliveryDocument, 'retryDueAt' | 'retry'> = {};
    if (!delivered && !due.manual) {
      const firstAttemptAt = due.firstAttemptAt ?? startedAt;
      const delay = nextRetryDelayMs(this.schedule, due.attempt, firstAttemptAt, this.clock().getTime());
      if (delay === null)
        givenUp = `Event ${due.envelope.id} (${due.envelope.type}) was not delivered after ${due.attempt} attempts: ${result.error}`;
      else {
        await this.register(due.workspaceId);
        const dueAt = this.clock().getTime() + delay;
        await this.bus.schedule(attemptMessage(due, due.attempt + 1, firstAttemptAt, message.correlationId, this.clock()), delay);
        retry = { retryDueAt: dueAt, retry: { attempt: due.attempt + 1, firstAttemptAt, correlationId: message.correlationId } };
      }
    }
    await this.log(deliveryId, due, result, retry);
    if (givenUp) {
      webhookFailures.inc();
      this.logger.warn(
        { subscriptionId: subscription.id, eventId: due.envelope.id, attempts: due.attempt },
        'webhook delivery given up; subscription marked failing',
      );
    }
    if (givenUp || (delivered && subscription.failingReason)) {
      await this.repositories.webhooks.setFailing(due.workspaceId, subscription.id, givenUp, apiTimestamp(this.clock()));
    }
  }

  /** A retry of an attempt a privacy erasure blanked since: its message (on the bus since) still names the erased person. */
  private async erasedRetry(due: WebhookDuePayload): Promise<boolean> {
    if (due.manual || due.attempt < 2) return false;
    const previous = deliveryIdOf(attemptMessageId(due.envelope.id, due.subscriptionId, due.attempt - 1));
    return Boolean((await this.repositories.deliveries.get(due.workspaceId, previous))?.erasedAt);
  }

  /** A retry's message reached the deliveries queue (a durable quorum queue): the store need not bring it back any more. */
  private async retryArrived(message: BusMessage, due: WebhookDuePayload): Promise<void> {
    if (due.manual || due.attempt < 2 || message.id !== attemptMessageId(due.envelope.id, due.subscriptionId, due.attempt)) return;
    const previous = deliveryIdOf(attemptMessageId(due.envelope.id, due.subscriptionId, due.attempt - 1));
    await this.repositories.deliveries.forgetRetry(due.workspaceId, previous);
  }

  private async register(workspaceId: string): Promise<void> {
    if (this.registered.has(workspaceId)) return;
    await this.repositories.engineWorkspaces.register(workspaceId, apiTimestamp(this.clock()));
    this.registered.add(workspaceId);
  }

  private async log(
    id: string,
    due: WebhookDuePayload,
    result: WebhookPostResult,
    retry: Pick<WebhookDeliveryDocument, 'retryDueAt' | 'retry'>,
  ): Promise<void> {
    const delivery: WebhookDeliveryDocument = {
      id,
      workspaceId: due.workspaceId,
      subscriptionId: due.subscriptionId,
      eventId: due.envelope.id,
      type: due.envelope.type,
      attempt: due.attempt,
      status: result.error === null ? 'delivered' : 'failed',
      responseStatus: result.status,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.excerpt,
      envelope: due.envelope,
      createdAt: this.clock().toISOString(),
      ...retry,
    };
    await this.repositories.deliveries.logOnce(delivery);
  }
}
