/**
 * The privacy export's and erasure's reads and writes of automation data: a workspace's outbound
 * emails, webhook delivery attempts and notifications, walked a page at a time in id order (so a
 * long log is never held whole), and one document's values blanked.
 */
import type { CollectionDefinition, Condition, DocumentStore, StoredDocument } from '@crm/store';
import type { EmailDocument, NotificationDocument } from '../domain/model';
import type { WebhookDeliveryDocument } from '../domain/webhook-model';
import { emails, notifications, webhookDeliveries } from './collections';

const PAGE = 500;

export class PersonDataRepository {
  constructor(private readonly store: DocumentStore) {}

  eachEmail(workspaceId: string, visit: (page: EmailDocument[]) => Promise<void>): Promise<void> {
    return this.eachPage(workspaceId, emails, [], visit);
  }

  eachDelivery(workspaceId: string, visit: (page: WebhookDeliveryDocument[]) => Promise<void>): Promise<void> {
    return this.eachPage(workspaceId, webhookDeliveries, [], visit);
  }

  notificationsAbout(workspaceId: string, recordIds: string[]): Promise<NotificationDocument[]> {
    if (recordIds.length === 0) return Promise.resolve([]);
    return this.store.forWorkspace(workspaceId).find(notifications, { where: [{ field: 'relatedTo', op: 'in', values: recordIds }] });
  }

  async blankEmail(workspaceId: string, id: string, blank: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(emails, id, { set: { to: blank, subject: blank, body: blank } });
  }

  /** The payload's data and the receiver's answer go; a retry not run yet is dropped (webhook-sender.ts reads `erasedAt`). */
  async blankDelivery(workspaceId: string, delivery: WebhookDeliveryDocument, blank: string, at: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(webhookDeliveries, delivery.id, {
      set: {
        envelope: { ...delivery.envelope, data: blank as unknown as Record<string, unknown> },
        responseExcerpt: delivery.responseExcerpt === null ? null : blank,
        erasedAt: at,
      },
      unset: ['retryDueAt', 'retry'],
    });
  }

  async blankNotification(workspaceId: string, id: string, blank: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(notifications, id, { set: { message: blank } });
  }

  private async eachPage<T extends StoredDocument>(
    workspaceId: string,
    collection: CollectionDefinition<T>,
    where: Condition[],
    visit: (page: T[]) => Promise<void>,
  ): Promise<void> {
    const scoped = this.store.forWorkspace(workspaceId);
    for (let after = ''; ;) {
      const page = await scoped.find(collection, {
        where: [...where, { field: 'id', op: 'gt', value: after }],
        sort: [{ field: 'id', direction: 'asc' }],
        limit: PAGE,
      });
      if (page.length === 0) return;
      await visit(page);
      after = page[page.length - 1]!.id;
    }
  }
}
