/** Contacts: create, read, update, delete and list, and an account's contacts. */
import { CONTACT_RULES } from '../domain/contact-rules';
import { recordDeleted } from '../domain/events';
import { ID_PREFIX } from '../domain/ids';
import * as lists from '../domain/list-rules';
import { requireVersion } from '../domain/record-version';
import type { ContactFilter } from '../store/record-filters';
import type { ListResult } from '../store/records-repository';
import { listCriteria } from './record-field-resolver';
import { RECORD_WRITES, stageCreate, stageUpdate } from './record-writes';
import { found, nowOf, referencesOf, searchFor, type RecordsContext } from './records-context';
import type { Caller, ContactView, Paging, WriteInput } from './views';

export interface ContactFilters {
  /** The filter language's tree, as JSON text (domain/record-filter.ts). */
  filter?: string;
  /** `customFields.<key>=` exact filters, as JSON text (record-field-resolver.ts). */
  customFieldEquals?: string;
  externalId?: string;
  cursor?: string;
  stage?: string;
  assignedTo?: string;
  search?: string;
  createdAfter?: string;
  createdBefore?: string;
  tags?: string[];
  ordering?: string;
  offset?: number;
  limit?: number;
}

export class ContactsService {
  constructor(private readonly context: RecordsContext) {}

  async create(caller: Caller, input: WriteInput): Promise<ContactView> {
    const { writer, ids } = this.context;
    const references = await referencesOf(this.context, caller, input.body, CONTACT_RULES);
    const now = this.context.clock();
    const contact = RECORD_WRITES.contact.build({ ...input, references }, ids(ID_PREFIX.contact), caller.workspaceId, now);
    const changes = writer.changes();
    const events = stageCreate(writer, changes, caller, 'contact', contact, now);
    await writer.write(caller, changes, events);
    return (await this.context.views.contacts(caller.workspaceId, [contact], true, references.customFields))[0]!;
  }

  async get(caller: Caller, id: string): Promise<ContactView> {
    const contact = await found(this.context.repo.record(caller.workspaceId, 'contact', id));
    return (await this.context.views.contacts(caller.workspaceId, [contact], true))[0]!;
  }

  async update(caller: Caller, id: string, input: WriteInput): Promise<ContactView> {
    const { repo, writer } = this.context;
    const current = await found(repo.record(caller.workspaceId, 'contact', id));
    requireVersion(current, input.expectedVersion);
    const references = await referencesOf(this.context, caller, input.body, CONTACT_RULES);
    const now = this.context.clock();
    const fields = RECORD_WRITES.contact.change(current, { ...input, references }, now);
    const changes = writer.changes();
    const { after, events } = stageUpdate(writer, changes, caller, 'contact', current, fields, now, input.expectedVersion);
    await writer.conditional(input.expectedVersion, () => writer.write(caller, changes, events));
    return (await this.context.views.contacts(caller.workspaceId, [after], true, references.customFields))[0]!;
  }

  /** The contact goes with its notes and tasks, and leaves the opportunities it was on. */
  async delete(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const { repo, writer } = this.context;
    const current = await found(repo.record(caller.workspaceId, 'contact', id));
    requireVersion(current, expectedVersion);
    const linked = await repo.opportunitiesWithContact(caller.workspaceId, id);
    const changes = writer.changes().delete('contact', id, expectedVersion).deleteDependents(id);
    for (const o of linked) {
      const contactIds = o.contactIds.filter((c) => c !== id);
      changes.setOpportunityContacts(o.id, contactIds);
    }
    writer.activity(changes, caller, 'deleted', 'contact', id, nowOf(this.context));
    writer.audit(changes, caller, 'deleted', 'contact', { id, before: current, after: null }, nowOf(this.context));
    await writer.conditional(expectedVersion, () => writer.write(caller, changes, [recordDeleted('contact', current)]));
  }

  async list(caller: Caller, filters: ContactFilters): Promise<ListResult<ContactView>> {
    const filter = contactListFilter(filters);
    const result = await this.context.repo.listRecords(caller.workspaceId, 'contact', filter, {
      search: searchFor(filters.search),
      ...(await listCriteria(this.context, caller.workspaceId, 'contact', filters)),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return {
      total: result.total,
      items: await this.context.views.contacts(caller.workspaceId, result.items, false),
      nextCursor: result.nextCursor,
    };
  }

  async listOfAccount(caller: Caller, accountId: string, paging: Paging = {}): Promise<ListResult<ContactView>> {
    await found(this.context.repo.record(caller.workspaceId, 'account', accountId));
    const result = await this.context.repo.listRecords(
      caller.workspaceId,
      'contact',
      { accountId },
      {
        ordering: { field: 'createdAt', direction: 'desc' },
        page: lists.page(paging.offset, paging.limit),
        cursor: paging.cursor,
      },
    );
    return { ...result, items: await this.context.views.contacts(caller.workspaceId, result.items, false) };
  }
}

/** The contact list's own filters, checked (400 for a bad value), as the store reads them. */
export function contactListFilter(filters: ContactFilters): ContactFilter {
  return {
    externalId: filters.externalId,
    stage: lists.choiceFilter('stage', filters.stage, 'contactStage'),
    assignedTo: filters.assignedTo,
    createdFrom: lists.timestampFilter('createdAfter', filters.createdAfter),
    createdTo: lists.timestampFilter('createdBefore', filters.createdBefore),
    tags: (filters.tags ?? []).map((tag) => tag.trim()).filter((tag) => tag),
  };
}
