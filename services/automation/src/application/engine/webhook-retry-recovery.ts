/**
 * The safety net under webhook retries, as the sweeper is under steps: a retry travels as a
 * scheduled bus message through the delay queues, which are classic queues and go with the broker
 * node that held them. The failed attempt's log row keeps the retry (retryDueAt, retry) until the
 * retry's attempt begins (webhook-sender.ts), so a retry overdue by more than the grace period has
 * probably been lost and is published again. Publishing it twice is harmless: an attempt whose row
 * exists is not made again.
 */
import type { MessageBus } from '@crm/bus';
import type { DocumentStore } from '@crm/store';
import { webhookDeliveries, webhookSubscriptions } from '../../store/collections';
import { attemptMessage, deliveryIdOf } from './webhook-sender';
import { systemClock, type Clock } from '@crm/vocabulary';

/**
 * How overdue a retry must be before it counts as lost. Longer than the steps' grace: a retry that
 * is merely late and also published again may be POSTed twice (at least once), so only a retry
 * clearly lost is brought back.
 */
export const WEBHOOK_RETRY_GRACE_MS = 60_000;

export class WebhookRetryRecovery {
  constructor(
    private readonly store: DocumentStore,
    private readonly bus: MessageBus,
    private readonly graceMs = WEBHOOK_RETRY_GRACE_MS,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The workspaces holding retries overdue by more than the grace period (some of them, oldest due first). */
  async workspacesDue(now: number, limit: number): Promise<string[]> {
    const overdue = await this.store.findAcrossWorkspaces(webhookDeliveries, {
      where: [{ field: 'retryDueAt', op: 'lte', value: now - this.graceMs }],
      sort: [{ field: 'retryDueAt', direction: 'asc' }],
      limit,
    });
    return overdue.map((delivery) => delivery.workspaceId!);
  }

  /** Publishes again the workspace's retries overdue by more than the grace period; returns how many. */
  async recover(workspaceId: string, now: number, limit: number): Promise<number> {
    const { graceMs } = this;
    const scoped = this.store.forWorkspace(workspaceId);
    const overdue = await scoped.find(webhookDeliveries, {
      where: [{ field: 'retryDueAt', op: 'lte', value: now - graceMs }],
      sort: [{ field: 'retryDueAt', direction: 'asc' }],
      limit,
    });
    let published = 0;
    for (const failed of overdue) {
      const message = failed.retry
        ? attemptMessage(failed, failed.retry.attempt, failed.retry.firstAttemptAt, failed.retry.correlationId, this.clock())
        : undefined;
      const subscription = await scoped.get(webhookSubscriptions, failed.subscriptionId);
      // Ran after all (its row exists), or nothing left to deliver to: nothing to bring back.
      if (!message || !subscription || (await scoped.get(webhookDeliveries, deliveryIdOf(message.id)))) {
        await scoped.update(webhookDeliveries, failed.id, { unset: ['retryDueAt', 'retry'] });
        continue;
      }
      // Mandatory: a retry no queue takes stays in the store for the next sweep.
      await this.bus.publish(message, { mandatory: true });
      // Looked at again only if this one is lost too.
      await scoped.update(webhookDeliveries, failed.id, { set: { retryDueAt: now + graceMs } });
      published += 1;
    }
    return published;
  }
}
