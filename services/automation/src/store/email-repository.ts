/**
 * The outbox's emails (one per send_email step run, id derived from the run and step) and the
 * workspace's daily email count (email_quota_days, one small document per UTC day).
 */
import { StoreError, type DocumentStore } from '@crm/store';
import type { EmailDocument, EmailStatus } from '../domain/model';
import type { Page, Paging } from '../domain/paging';
import { emailQuotaDays, emails } from './collections';
import { workspacePage } from './paging';

export class EmailRepository {
  constructor(private readonly store: DocumentStore) {}

  /** The workspace's emails, about one record when `relatedTo` is given, newest first. */
  page(workspaceId: string, relatedTo: string | undefined, paging: Paging): Promise<Page<EmailDocument>> {
    const where = relatedTo ? [{ field: 'relatedTo', op: 'eq' as const, value: relatedTo }] : [];
    return workspacePage(this.store, workspaceId, emails, { where, sort: { field: 'createdAt', direction: 'desc' } }, paging);
  }

  get(workspaceId: string, id: string): Promise<EmailDocument | null> {
    return this.store.forWorkspace(workspaceId).get(emails, id);
  }

  /** Writes the email once: when its id is taken (an earlier attempt wrote it), the one already there. */
  async insertOnce(email: EmailDocument): Promise<EmailDocument> {
    const scoped = this.store.forWorkspace(email.workspaceId);
    try {
      return await scoped.insert(emails, email);
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
      return (await scoped.get(emails, email.id))!;
    }
  }

  /** queued → sending, only from queued (a compare-and-set: one worker sends); null when it was not queued. */
  markSending(workspaceId: string, id: string): Promise<EmailDocument | null> {
    return this.store
      .forWorkspace(workspaceId)
      .update(emails, id, { set: { status: 'sending' } }, { where: [{ field: 'status', op: 'eq', value: 'queued' }] });
  }

  /** Moves the email to `to` (with `error`), only from one of `from`. */
  async move(workspaceId: string, id: string, from: EmailStatus[], to: EmailStatus, error: string | null): Promise<void> {
    await this.store
      .forWorkspace(workspaceId)
      .update(emails, id, { set: { status: to, error } }, { where: [{ field: 'status', op: 'in', values: from }] });
  }

  /** Takes one email from the workspace's count for `day`, only while it is below `quota`; false when it is not (or the day is not open). */
  async takeFromDailyQuota(workspaceId: string, day: string, quota: number): Promise<boolean> {
    const taken = await this.store
      .forWorkspace(workspaceId)
      .update(emailQuotaDays, day, { inc: { count: 1 } }, { where: [{ field: 'count', op: 'lt', value: quota }] });
    return taken !== null;
  }

  async dailyCountOpen(workspaceId: string, day: string): Promise<boolean> {
    return (await this.store.forWorkspace(workspaceId).get(emailQuotaDays, day)) !== null;
  }

  /** Starts the count of `day` at 0 and deletes the older days', together; another worker opening it first is no error. */
  async openDailyCount(workspaceId: string, day: string): Promise<void> {
    try {
      await this.store.forWorkspace(workspaceId).commit([
        { kind: 'deleteMany', collection: emailQuotaDays, where: [{ field: 'id', op: 'lt', value: day }] },
        { kind: 'insert', collection: emailQuotaDays, document: { id: day, workspaceId, count: 0 } },
      ]);
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error; // another worker opened the day
    }
  }
}
