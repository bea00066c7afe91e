/**
 * The webhook delivery log: one document per attempt, id derived from the attempt's message. A
 * failed attempt's row also keeps its retry (retryDueAt, retry) until the retry begins, so a retry
 * the bus loses can be brought back from here.
 */
import { StoreError, type DocumentStore } from '@crm/store';
import type { Page, Paging } from '../domain/paging';
import type { WebhookDeliveryDocument } from '../domain/webhook-model';
import { webhookDeliveries } from './collections';
import { workspacePage } from './paging';

export class WebhookDeliveryRepository {
  constructor(private readonly store: DocumentStore) {}

  /** A subscription's attempts, newest first. */
  page(workspaceId: string, subscriptionId: string, paging: Paging): Promise<Page<WebhookDeliveryDocument>> {
    const where = [{ field: 'subscriptionId', op: 'eq' as const, value: subscriptionId }];
    return workspacePage(this.store, workspaceId, webhookDeliveries, { where, sort: { field: 'createdAt', direction: 'desc' } }, paging);
  }

  get(workspaceId: string, id: string): Promise<WebhookDeliveryDocument | null> {
    return this.store.forWorkspace(workspaceId).get(webhookDeliveries, id);
  }

  /** How many attempts of the event to the subscription are logged. */
  countAttempts(workspaceId: string, subscriptionId: string, eventId: string): Promise<number> {
    return this.store.forWorkspace(workspaceId).count(webhookDeliveries, [
      { field: 'subscriptionId', op: 'eq', value: subscriptionId },
      { field: 'eventId', op: 'eq', value: eventId },
    ]);
  }

  /** Logs the attempt once: a row already there (its message came again) is no error. */
  async logOnce(delivery: WebhookDeliveryDocument): Promise<void> {
    try {
      await this.store.forWorkspace(delivery.workspaceId).insert(webhookDeliveries, delivery);
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
    }
  }

  /** The attempt's retry began (or is not to be brought back): the row forgets it. */
  async forgetRetry(workspaceId: string, id: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(webhookDeliveries, id, { unset: ['retryDueAt', 'retry'] });
  }

  /** The attempt's retry, published again, is looked at again at `retryDueAt`. */
  async postponeRetry(workspaceId: string, id: string, retryDueAt: number): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(webhookDeliveries, id, { set: { retryDueAt } });
  }

  /** Attempts whose retry was due by `before`, in any workspace, oldest due first. */
  overdueRetriesAcrossWorkspaces(before: number, limit: number): Promise<WebhookDeliveryDocument[]> {
    return this.store.findAcrossWorkspaces(webhookDeliveries, {
      where: [{ field: 'retryDueAt', op: 'lte', value: before }],
      sort: [{ field: 'retryDueAt', direction: 'asc' }],
      limit,
    });
  }

  /** The workspace's attempts whose retry was due by `before`, oldest due first. */
  overdueRetries(workspaceId: string, before: number, limit: number): Promise<WebhookDeliveryDocument[]> {
    return this.store.forWorkspace(workspaceId).find(webhookDeliveries, {
      where: [{ field: 'retryDueAt', op: 'lte', value: before }],
      sort: [{ field: 'retryDueAt', direction: 'asc' }],
      limit,
    });
  }
}
