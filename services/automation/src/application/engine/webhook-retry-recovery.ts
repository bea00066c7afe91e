/**
 * The safety net under webhook retries, as the sweeper is under steps: a retry travels as a
 * scheduled bus message through the delay queues, which are classic queues and go with the broker
 * node that held them. The failed attempt's log row keeps the retry (retryDueAt, retry) until the
 * retry's attempt begins (webhook-sender.ts), so a retry overdue by more than the grace period has
 * probably been lost and is published again. Publishing it twice is harmless: an attempt whose row
 * exists is not made again.
 */
import type { MessageBus } from '@crm/bus';
import type { AutomationRepositories } from '../../store/repositories';
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
    private readonly repositories: Pick<AutomationRepositories, 'webhooks' | 'deliveries'>,
    private readonly bus: MessageBus,
    private readonly graceMs = WEBHOOK_RETRY_GRACE_MS,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The workspaces holding retries overdue by more than the grace period (some of them, oldest due first). */
  async workspacesDue(now: number, limit: number): Promise<string[]> {
    const overdue = await this.repositories.deliveries.overdueRetriesAcrossWorkspaces(now - this.graceMs, limit);
    return overdue.map((delivery) => delivery.workspaceId!);
  }

  /** Publishes again the workspace's retries overdue by more than the grace period; returns how many. */
  async recover(workspaceId: string, now: number, limit: number): Promise<number> {
    const { graceMs } = this;
    const { webhooks, deliveries } = this.repositories;
    const overdue = await deliveries.overdueRetries(workspaceId, now - graceMs, limit);
    let published = 0;
    for (const failed of overdue) {
      const message = failed.retry
        ? attemptMessage(failed, failed.retry.attempt, failed.retry.firstAttemptAt, failed.retry.correlationId, this.clock())
        : undefined;
      const subscription = await webhooks.get(workspaceId, failed.subscriptionId);
      // Ran after all (its row exists), or nothing left to deliver to: nothing to bring back.
      if (!message || !subscription || (await deliveries.get(workspaceId, deliveryIdOf(message.id)))) {
        await deliveries.forgetRetry(workspaceId, failed.id);
        continue;
      }
      // Mandatory: a retry no queue takes stays in the store for the next sweep.
      await this.bus.publish(message, { mandatory: true });
      // Looked at again only if this one is lost too.
      await deliveries.postponeRetry(workspaceId, failed.id, now + graceMs);
      published += 1;
    }
    return published;
  }
}
