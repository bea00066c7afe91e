/**
 * The audit log's reads (GET /api/audit-log/, a record's history) and its part in privacy: the
 * entries about a person's records exported, and blanked in the erasure's commit. The entries
 * themselves are written by RecordWriter.audit, in the commit of the change they describe.
 */
import { DomainError } from '@crm/observability';
import type { ListPage } from '@crm/store';
import { erasedChanges, erasedValues, isGroupedEntryId, type AuditEntryDocument } from '../domain/audit-entry';
import * as lists from '../domain/list-rules';
import { recordTypeOfId } from '../domain/representation';
import { AuditRepository, type AuditFilters } from '../store/audit-repository';
import type { RecordChanges } from '../store/record-changes';
import type { PersonAuditTrail } from './person-audit-trail';
import type { RecordsContext } from './records-context';
import type { Caller, Paging } from './views';

/** An entry as the API shows it, the actor's name filled in (users' from the directory; the gateway names keys). */
export type AuditEntryView = Omit<AuditEntryDocument, 'workspaceId' | 'actorType' | 'actorId'> & {
  actor: { type: AuditEntryDocument['actorType']; id: string; name: string };
};

export class AuditLog implements PersonAuditTrail {
  private readonly entries: AuditRepository;

  constructor(private readonly context: RecordsContext) {
    this.entries = new AuditRepository(context.repo.store, context.auditStaging);
  }

  async list(caller: Caller, filters: AuditFilters, paging: Paging): Promise<ListPage<AuditEntryView>> {
    const page = await this.entries.list(caller.workspaceId, filters, lists.page(paging.offset, paging.limit), paging.cursor);
    return { ...page, items: await this.views(caller.workspaceId, page.items) };
  }

  /** One record's entries; a record that never existed (no entries, and no such record) is not found. */
  async history(caller: Caller, recordKind: string, recordId: string, paging: Paging): Promise<ListPage<AuditEntryView>> {
    const page = await this.list(caller, { recordId, recordKind }, paging);
    if (page.items.length === 0 && !paging.cursor && !paging.offset) {
      const type = recordTypeOfId(recordId);
      const exists = type === recordKind && (await this.context.repo.record(caller.workspaceId, type, recordId)) !== null;
      if (!exists) throw DomainError.notFound();
    }
    return page;
  }

  async entriesAbout(workspaceId: string, recordIds: string[]): Promise<Record<string, unknown>[]> {
    return this.views(workspaceId, await this.entries.about(workspaceId, recordIds));
  }

  async blankEntriesAbout(changes: RecordChanges, workspaceId: string, recordIds: string[]): Promise<number> {
    const wanted = new Set(recordIds);
    const [about, groups] = await Promise.all([
      this.entries.about(workspaceId, recordIds),
      this.entries.groupsAbout(workspaceId, recordIds),
    ]);
    for (const entry of about) if (!isGroupedEntryId(entry.id)) changes.rewriteAuditChanges(entry.id, erasedChanges(entry.changes));
    // A group's entries are rewritten together: the person's blanked, the others' kept.
    for (const group of groups) {
      const entries = group.entries.map((e) => (wanted.has(e.recordId) ? { ...e, values: erasedValues(e.values) } : e));
      changes.rewriteAuditGroup(group, entries);
    }
    return about.length;
  }

  private async views(workspaceId: string, documents: AuditEntryDocument[]): Promise<AuditEntryView[]> {
    const userIds = [...new Set(documents.filter((d) => d.actorType === 'user').map((d) => d.actorId))];
    const users = userIds.length > 0 ? await this.context.users.lookup(workspaceId, userIds) : null;
    return documents.map(({ workspaceId: _, actorType, actorId, ...rest }) => ({
      ...rest,
      actor: { type: actorType, id: actorId, name: actorType === 'user' ? (users?.get(actorId)?.name ?? '') : '' },
    }));
  }
}
