/**
 * The domain events automation reacts to (its rules, exit conditions and outbound webhooks), as
 * written to the outbox in the same commit as the change. Payloads carry the workspace id and the
 * full record (public shape; for a deletion, as it was).
 */
import { CONTACTS_CREATED, jsonLengthEstimate, RECORD_EVENT_GROUP, RECORDS_WRITTEN, type RecordsWrittenPayload } from '@crm/vocabulary';
import { isClosed } from './opportunity-rules';
import type { AccountDocument, ContactDocument, LeadDocument, OpportunityDocument, RecordDocument } from './model';
import { publicRecord } from './representation';

export const EVENT_TYPES = {
  leadCreated: 'records.lead_created.v1',
  leadStatusChanged: 'records.lead_status_changed.v1',
  contactCreated: 'records.contact_created.v1',
  contactsCreated: CONTACTS_CREATED,
  opportunityStageChanged: 'records.opportunity_stage_changed.v1',
  proposalStatusChanged: 'records.proposal_status_changed.v1',
  recordUpdated: 'records.record_updated.v1',
  recordsMerged: 'records.records_merged.v1',
  accountCreated: 'records.account_created.v1',
  opportunityCreated: 'records.opportunity_created.v1',
  recordDeleted: 'records.record_deleted.v1',
  personErased: 'records.person_erased.v1',
  recordsWritten: RECORDS_WRITTEN,
} as const;

export interface DomainEvent {
  type: (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];
  payload: Record<string, unknown>;
  /** The payload's jsonLengthEstimate, when its maker knew it already (a group's). */
  jsonLength?: number;
}

export function leadCreated(lead: LeadDocument): DomainEvent {
  return {
    type: EVENT_TYPES.leadCreated,
    payload: { workspaceId: lead.workspaceId, recordType: 'lead', recordId: lead.id, record: publicRecord(lead) },
  };
}

export function leadEvents(before: LeadDocument, after: LeadDocument): DomainEvent[] {
  if (before.status === after.status) return [];
  return [
    {
      type: EVENT_TYPES.leadStatusChanged,
      payload: {
        workspaceId: after.workspaceId,
        recordType: 'lead',
        recordId: after.id,
        previousStatus: before.status,
        status: after.status,
        record: publicRecord(after),
      },
    },
  ];
}

export function contactCreated(contact: ContactDocument): DomainEvent {
  return {
    type: EVENT_TYPES.contactCreated,
    payload: { workspaceId: contact.workspaceId, recordType: 'contact', recordId: contact.id, record: publicRecord(contact) },
  };
}

/**
 * The contacts of one batch create (an import chunk) as one event: one outbox write and one
 * message instead of one per row. Consumers treat each entry as a contact_created event whose id is
 * `${message id}:${entry.recordId}`.
 */
export function contactsCreated(workspaceId: string, created: ContactDocument[]): DomainEvent {
  return { type: EVENT_TYPES.contactsCreated, payload: { workspaceId, events: created.map((contact) => contactCreated(contact).payload) } };
}

/**
 * A batch write's events as few messages as RECORD_EVENT_GROUP allows (@crm/vocabulary's
 * record-event-groups.ts); a single event stays as it is.
 */
export function recordsWritten(workspaceId: string, events: DomainEvent[]): DomainEvent[] {
  if (events.length <= 1) return events;
  const groups: DomainEvent[] = [];
  let written: RecordsWrittenPayload['written'] = [];
  let length = 0;
  const close = () => {
    if (written.length === 0) return;
    groups.push({
      type: EVENT_TYPES.recordsWritten,
      payload: { workspaceId, written } satisfies RecordsWrittenPayload,
      jsonLength: length,
    });
    [written, length] = [[], 0];
  };
  for (const event of events) {
    const size = jsonLengthEstimate(event.payload);
    if (written.length >= RECORD_EVENT_GROUP.maxEvents || (written.length > 0 && length + size > RECORD_EVENT_GROUP.maxJsonLength)) close();
    written.push({ type: event.type, payload: event.payload });
    length += size;
  }
  close();
  return groups;
}

/** Stage events for a change from `before` (null for a new opportunity) to `after`. */
export function opportunityEvents(before: OpportunityDocument | null, after: OpportunityDocument): DomainEvent[] {
  const previousStage = before?.stage ?? null;
  if (previousStage === after.stage) return [];
  const base = { workspaceId: after.workspaceId, recordType: 'opportunity', recordId: after.id, record: publicRecord(after) };
  const events: DomainEvent[] = [];
  if (before) {
    events.push({
      type: EVENT_TYPES.opportunityStageChanged,
      payload: { ...base, previousStage, stage: after.stage, closed: isClosed(after.stage) },
    });
  }
  const wasProposal = previousStage === 'proposal';
  const isProposal = after.stage === 'proposal';
  if (wasProposal !== isProposal) {
    events.push({
      type: EVENT_TYPES.proposalStatusChanged,
      payload: { ...base, previousStage, stage: after.stage, change: isProposal ? 'entered' : 'left' },
    });
  }
  return events;
}

export function accountCreated(account: AccountDocument): DomainEvent {
  return {
    type: EVENT_TYPES.accountCreated,
    payload: { workspaceId: account.workspaceId, recordType: 'account', recordId: account.id, record: publicRecord(account) },
  };
}

/** A new opportunity (besides the proposal event, when it starts in that stage). */
export function opportunityCreated(opportunity: OpportunityDocument): DomainEvent {
  return {
    type: EVENT_TYPES.opportunityCreated,
    payload: {
      workspaceId: opportunity.workspaceId,
      recordType: 'opportunity',
      recordId: opportunity.id,
      record: publicRecord(opportunity),
    },
  };
}

/** A record deleted through the API, with what it was. */
export function recordDeleted(recordType: 'lead' | 'contact' | 'account' | 'opportunity', before: RecordDocument): DomainEvent {
  return {
    type: EVENT_TYPES.recordDeleted,
    payload: { workspaceId: before.workspaceId, recordType, recordId: before.id, record: publicRecord(before) },
  };
}

/**
 * Any change to a lead, contact, account or opportunity (with its status or stage events, when those
 * moved too): automation applies its runs' exit conditions on it and sends `<type>.updated` webhooks.
 */
export function recordUpdated(recordType: 'lead' | 'contact' | 'account' | 'opportunity', after: RecordDocument): DomainEvent {
  return {
    type: EVENT_TYPES.recordUpdated,
    payload: { workspaceId: after.workspaceId, recordType, recordId: after.id, record: publicRecord(after) },
  };
}

/** Duplicates merged into a survivor: consumers move what they hold of the merged ids onto it. */
export function recordsMerged(recordType: 'contact' | 'lead' | 'account', after: RecordDocument, mergedIds: string[]): DomainEvent {
  return {
    type: EVENT_TYPES.recordsMerged,
    payload: { workspaceId: after.workspaceId, recordType, recordId: after.id, mergedIds, record: publicRecord(after) },
  };
}

/** A person was erased (privacy): how much went, never who (no email, no record). */
export function personErased(workspaceId: string, counts: Record<string, number>): DomainEvent {
  return { type: EVENT_TYPES.personErased, payload: { workspaceId, counts } };
}
