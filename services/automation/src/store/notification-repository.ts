/** The outbox's in-app notifications (one per recipient of a send_notification step run). */
import { StoreError, type Condition, type DocumentStore } from '@crm/store';
import type { NotificationDocument } from '../domain/model';
import type { Page, Paging } from '../domain/paging';
import { notifications } from './collections';
import { workspacePage } from './paging';

export class NotificationRepository {
  constructor(private readonly store: DocumentStore) {}

  /** The workspace's notifications, to one recipient and about one record when given, newest first. */
  page(workspaceId: string, filter: { recipient?: string; relatedTo?: string }, paging: Paging): Promise<Page<NotificationDocument>> {
    const where: Condition[] = [];
    if (filter.recipient) where.push({ field: 'recipient', op: 'eq', value: filter.recipient });
    if (filter.relatedTo) where.push({ field: 'relatedTo', op: 'eq', value: filter.relatedTo });
    return workspacePage(this.store, workspaceId, notifications, { where, sort: { field: 'createdAt', direction: 'desc' } }, paging);
  }

  /** Writes the notification once: its id taken (an earlier attempt wrote it) is no error. */
  async insertOnce(notification: NotificationDocument): Promise<void> {
    try {
      await this.store.forWorkspace(notification.workspaceId).insert(notifications, notification);
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
    }
  }
}
