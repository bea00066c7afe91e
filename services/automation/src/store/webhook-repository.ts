/** A workspace's webhook subscriptions. */
import type { DocumentStore } from '@crm/store';
import type { Page, Paging } from '../domain/paging';
import type { WebhookSubscriptionDocument } from '../domain/webhook-model';
import { webhookSubscriptions } from './collections';
import { workspacePage } from './paging';

export class WebhookRepository {
  constructor(private readonly store: DocumentStore) {}

  count(workspaceId: string): Promise<number> {
    return this.store.forWorkspace(workspaceId).count(webhookSubscriptions, []);
  }

  insert(subscription: WebhookSubscriptionDocument): Promise<WebhookSubscriptionDocument> {
    return this.store.forWorkspace(subscription.workspaceId).insert(webhookSubscriptions, subscription);
  }

  /** Newest first. */
  page(workspaceId: string, paging: Paging): Promise<Page<WebhookSubscriptionDocument>> {
    return workspacePage(this.store, workspaceId, webhookSubscriptions, { sort: { field: 'createdAt', direction: 'desc' } }, paging);
  }

  get(workspaceId: string, id: string): Promise<WebhookSubscriptionDocument | null> {
    return this.store.forWorkspace(workspaceId).get(webhookSubscriptions, id);
  }

  /** Null when there is no such subscription. */
  update(workspaceId: string, id: string, set: Partial<WebhookSubscriptionDocument>): Promise<WebhookSubscriptionDocument | null> {
    return this.store.forWorkspace(workspaceId).update(webhookSubscriptions, id, { set });
  }

  /** False when there was no such subscription. */
  delete(workspaceId: string, id: string): Promise<boolean> {
    return this.store.forWorkspace(workspaceId).delete(webhookSubscriptions, id);
  }

  /** Replaces the secrets only while the subscription is as it was read (its `updatedAt`); null otherwise. */
  replaceSecrets(
    workspaceId: string,
    id: string,
    secrets: WebhookSubscriptionDocument['secrets'],
    updatedAt: string,
    readUpdatedAt: string,
  ): Promise<WebhookSubscriptionDocument | null> {
    return this.store
      .forWorkspace(workspaceId)
      .update(
        webhookSubscriptions,
        id,
        { set: { secrets, updatedAt } },
        { where: [{ field: 'updatedAt', op: 'eq', value: readUpdatedAt }] },
      );
  }

  /** The workspace's active subscriptions. */
  active(workspaceId: string): Promise<WebhookSubscriptionDocument[]> {
    return this.store.forWorkspace(workspaceId).find(webhookSubscriptions, { where: [{ field: 'isActive', op: 'eq', value: true }] });
  }

  /** Marks the subscription failing with the reason, or (null) no longer failing. */
  async setFailing(workspaceId: string, id: string, failingReason: string | null, updatedAt: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(webhookSubscriptions, id, { set: { failingReason, updatedAt } });
  }
}
