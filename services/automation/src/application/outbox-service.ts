/** The outbox the engine wrote: a workspace's emails and in-app notifications, newest first. */
import type { EmailDocument, NotificationDocument } from '../domain/model';
import type { Page, Paging } from '../domain/paging';
import type { AutomationRepositories } from '../store/repositories';
import type { Caller } from './caller';

export class OutboxService {
  constructor(private readonly repositories: Pick<AutomationRepositories, 'emails' | 'notifications'>) {}

  listEmails(caller: Caller, filter: { relatedTo?: string } & Paging): Promise<Page<EmailDocument>> {
    return this.repositories.emails.page(caller.workspaceId, filter.relatedTo, filter);
  }

  listNotifications(caller: Caller, filter: { recipient?: string; relatedTo?: string } & Paging): Promise<Page<NotificationDocument>> {
    return this.repositories.notifications.page(caller.workspaceId, filter, filter);
  }
}
