/** Reads of the audit log: a page newest first by its filters, and every entry about some records (privacy). */
import { listPage, type Condition, type DocumentStore, type ListPage } from '@crm/store';
import type { AuditEntryDocument } from '../domain/audit-entry';
import type { Page } from '../domain/list-rules';
import { auditEntries } from './audit-collections';

export interface AuditFilters {
  recordId?: string;
  recordKind?: string;
  actorType?: string;
  actorId?: string;
  action?: string;
  requestId?: string;
  /** ISO timestamps, exclusive. */
  after?: string;
  before?: string;
}

const EQUALITY = ['recordId', 'recordKind', 'actorType', 'actorId', 'action', 'requestId'] as const;

/** Ids per `in` condition, within what the store binds at once. */
const IDS_PER_QUERY = 500;

export class AuditRepository {
  constructor(private readonly store: DocumentStore) {}

  list(workspaceId: string, filters: AuditFilters, page: Page, cursor?: string): Promise<ListPage<AuditEntryDocument>> {
    const where: Condition[] = [];
    for (const field of EQUALITY) {
      const value = filters[field];
      if (value !== undefined) where.push({ field, op: 'eq', value });
    }
    if (filters.after !== undefined) where.push({ field: 'occurredAt', op: 'gt', value: filters.after });
    if (filters.before !== undefined) where.push({ field: 'occurredAt', op: 'lt', value: filters.before });
    return listPage(this.store.forWorkspace(workspaceId), auditEntries, {
      where,
      sort: { field: 'occurredAt', direction: 'desc' },
      ...page,
      cursor,
      owner: workspaceId,
    });
  }

  /** Every entry about these records, newest first. */
  async about(workspaceId: string, recordIds: string[]): Promise<AuditEntryDocument[]> {
    const found: AuditEntryDocument[] = [];
    for (let i = 0; i < recordIds.length; i += IDS_PER_QUERY) {
      const values = recordIds.slice(i, i + IDS_PER_QUERY);
      found.push(
        ...(await this.store.forWorkspace(workspaceId).find(auditEntries, {
          where: [{ field: 'recordId', op: 'in', values }],
          sort: [{ field: 'occurredAt', direction: 'desc' }],
        })),
      );
    }
    return found;
  }
}
