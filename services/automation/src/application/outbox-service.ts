/** The outbox the engine wrote: a workspace's emails and in-app notifications, newest first. */
import { workspacePage, type Page, type Paging } from './paging';
import type { Condition as StoreCondition, DocumentStore } from '@crm/store';
import type { EmailDocument, NotificationDocument } from '../domain/model';
import { emails, notifications } from '../store/collections';
import type { Caller } from './caller';

export class OutboxService {
  constructor(private readonly store: DocumentStore) {}

  async listEmails(caller: Caller, filter: { relatedTo?: string } & Paging): Promise<Page<EmailDocument>> {
    const where: StoreCondition[] = filter.relatedTo ? [{ field: 'relatedTo', op: 'eq', value: filter.relatedTo }] : [];
    return this.page(caller, emails, where, filter);
  }

  async listNotifications(
    caller: Caller,
    filter: { recipient?: string; relatedTo?: string } & Paging,
  ): Promise<Page<NotificationDocument>> {
    const where: StoreCondition[] = [];
    if (filter.recipient) where.push({ field: 'recipient', op: 'eq', value: filter.recipient });
    if (filter.relatedTo) where.push({ field: 'relatedTo', op: 'eq', value: filter.relatedTo });
    return this.page(caller, notifications, where, filter);
  }

  private async page<T extends EmailDocument | NotificationDocument>(
    caller: Caller,
    collection: typeof emails | typeof notifications,
    where: StoreCondition[],
    filter: Paging,
  ): Promise<Page<T>> {
    const page = await workspacePage(
      this.store,
      caller.workspaceId,
      collection as typeof emails,
      { where, sort: { field: 'createdAt', direction: 'desc' } },
      filter,
    );
    return { ...page, items: page.items as unknown as T[] };
  }
}
