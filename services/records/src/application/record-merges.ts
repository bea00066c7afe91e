/**
 * Merging duplicate contacts, leads or accounts into a survivor, in one commit: its merged field
 * values (domain/record-merge.ts), the merged records' notes, tasks, activities and links moved onto
 * it, the merged records deleted, and a `merged` activity naming them. Any of them changing
 * meanwhile fails the commit (409).
 */
import { DomainError } from '@crm/observability';
import { accountChanges, ACCOUNT_RULES } from '../domain/account-rules';
import { contactChanges, CONTACT_RULES } from '../domain/contact-rules';
import { recordsMerged, recordUpdated } from '../domain/events';
import type { FieldTable, KnownReferences } from '../domain/field-rules';
import { leadChanges, LEAD_RULES } from '../domain/lead-rules';
import type { AccountDocument, ContactDocument, LeadDocument, OpportunityDocument } from '../domain/model';
import { checkMergedFound, checkMergeList, mergedBody, type MergeableType, type MergeRequest } from '../domain/record-merge';
import { versionOf } from '../domain/record-version';
import type { RecordChanges } from '../store/record-changes';
import { isConflict } from './record-writer';
import { found, nowOf, referencesOf, type RecordsContext } from './records-context';
import type { AnyRecords } from './any-records';
import type { AnyRecordView, Caller } from './views';

type MergeableDocument = ContactDocument | LeadDocument | AccountDocument;

/** What a merge needs of each kind: its writable fields and its update rules. */
const MERGEABLE: Record<
  MergeableType,
  {
    fields: FieldTable;
    changes(current: MergeableDocument, input: { body: Record<string, unknown>; references: KnownReferences }, now: string): object;
  }
> = {
  contact: { fields: CONTACT_RULES, changes: (c, input, now) => contactChanges(c as ContactDocument, input, now) },
  lead: { fields: LEAD_RULES, changes: (c, input, now) => leadChanges(c as LeadDocument, input, now) },
  account: { fields: ACCOUNT_RULES, changes: (c, input, now) => accountChanges(c as AccountDocument, input, now) },
};

export class RecordMerges {
  constructor(
    private readonly context: RecordsContext,
    /** Reads the survivor back as it now is. */
    private readonly records: AnyRecords,
  ) {}

  /** Merges `request.mergeIds` into the record `id` and answers the survivor as it now is. */
  async merge(caller: Caller, type: MergeableType, id: string, request: MergeRequest): Promise<AnyRecordView> {
    await this.commitMerge(caller, type, id, request);
    return this.records.get(caller, type, id);
  }

  private async commitMerge(caller: Caller, type: MergeableType, id: string, request: MergeRequest): Promise<void> {
    const { repo, writer } = this.context;
    const kind = MERGEABLE[type];
    const ws = caller.workspaceId;
    checkMergeList(id, request.mergeIds);
    const survivor: MergeableDocument = await found(repo.record(ws, type, id));
    const merged = (await Promise.all(request.mergeIds.map((other) => repo.record(ws, type, other)))).filter(
      (record): record is MergeableDocument => record !== null,
    );
    checkMergedFound(request.mergeIds, new Set(merged.map((record) => record.id)));
    const body = mergedBody(survivor as never, merged as never[], kind.fields, request.winners);
    const references = await referencesOf(this.context, caller, body, kind.fields);
    const now = nowOf(this.context);
    const fields = kind.changes(survivor, { body, references }, now);
    const after = { ...survivor, ...fields, version: versionOf(survivor) + 1 } as MergeableDocument;
    const mergedIds = merged.map((record) => record.id);
    // The merged records go first: the survivor may take one's externalId, unique per workspace and kind.
    const changes = writer.changes();
    for (const record of merged) changes.delete(type, record.id, versionOf(record));
    changes.update(type, id, fields, { expectedVersion: versionOf(survivor) });
    // After the merged records' claims are released: the survivor may take one's unique value.
    if ('uniqueClaims' in fields) changes.claims(type, id, after.uniqueClaims ?? [], survivor.uniqueClaims ?? [], ws);
    changes.moveToSurvivor(type, mergedIds, id);
    if (type === 'contact') await this.moveOpportunityContacts(ws, changes, mergedIds, id);
    writer.activity(changes, caller, 'merged', type, id, now, mergedIds);
    // The survivor's entry lists what it took over; each merged record's, the values it had.
    writer.audit(changes, caller, 'merged', type, { id, before: survivor, after }, now);
    for (const record of merged) writer.audit(changes, caller, 'merged', type, { id: record.id, before: record, after: null }, now);
    const events = [...(type === 'account' ? [] : [recordUpdated(type, after)]), recordsMerged(type, after, mergedIds)];
    try {
      await writer.write(caller, changes, events);
    } catch (error) {
      if (isConflict(error)) throw new DomainError('conflict', 'A record changed during the merge; send it again.');
      throw error;
    }
  }

  /** The opportunities a merged contact was on name the survivor instead, once. */
  private async moveOpportunityContacts(
    workspaceId: string,
    changes: RecordChanges,
    mergedIds: string[],
    survivorId: string,
  ): Promise<void> {
    const linked = new Map<string, OpportunityDocument>();
    for (const other of mergedIds)
      for (const o of await this.context.repo.opportunitiesWithContact(workspaceId, other)) linked.set(o.id, o);
    for (const o of linked.values())
      changes.setOpportunityContacts(o.id, [...new Set(o.contactIds.map((c) => (mergedIds.includes(c) ? survivorId : c)))]);
  }
}
