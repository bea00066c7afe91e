/**
 * What each trigger kind reacts to: the records event that raises it, the kind of record it
 * enrolls, and the fields of that record conditions may name (as the public API shows them).
 */
import { CONTACT_STAGES, LEAD_STATUSES, OPPORTUNITY_STAGES } from '@crm/vocabulary';
import type { RecordType, TriggerKind } from './model';

export const TRIGGERS: Record<TriggerKind, { eventType: string; recordType: RecordType; description: string }> = {
  lead_created: { eventType: 'records.lead_created.v1', recordType: 'lead', description: 'A lead is created.' },
  lead_status_changed: { eventType: 'records.lead_status_changed.v1', recordType: 'lead', description: "A lead's status changes." },
  proposal_status_changed: {
    eventType: 'records.proposal_status_changed.v1',
    recordType: 'opportunity',
    description: 'An opportunity enters or leaves the proposal stage.',
  },
  contact_created: { eventType: 'records.contact_created.v1', recordType: 'contact', description: 'A contact is created.' },
  opportunity_stage_changed: {
    eventType: 'records.opportunity_stage_changed.v1',
    recordType: 'opportunity',
    description: "An opportunity's stage changes.",
  },
};

/** Records' event for one batch create: its `events` are contact_created payloads. */
export const CONTACTS_CREATED_BATCH = 'records.contacts_created.v1';

/** The workspace a message's payload names, if any: every event a message stands for (a batch's too) is of it. */
export function messageWorkspaceId(message: { payload?: unknown }): string | undefined {
  const workspaceId = (message.payload as { workspaceId?: unknown } | null | undefined)?.workspaceId;
  return typeof workspaceId === 'string' && workspaceId !== '' ? workspaceId : undefined;
}

/** The trigger kinds an event type raises (one today; a list so a new trigger can share an event). */
export function triggersForEvent(eventType: string): TriggerKind[] {
  return (Object.keys(TRIGGERS) as TriggerKind[]).filter((kind) => TRIGGERS[kind].eventType === eventType);
}

/** `any`: a custom field (`customFields.<key>`), whose type the records service holds. */
export type FieldKind = 'string' | 'number' | 'boolean' | 'date' | 'list' | 'any';

export interface FieldSpec {
  kind: FieldKind;
  /** The field's value set, when it has one: an eq/in value outside it can never match. */
  values?: readonly string[];
}

const common: Record<string, FieldSpec> = {
  id: { kind: 'string' },
  assignedTo: { kind: 'string' },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

/** Fields conditions may name, per record type. */
export const RECORD_FIELDS: Record<RecordType, Record<string, FieldSpec>> = {
  lead: {
    ...common,
    firstName: { kind: 'string' },
    lastName: { kind: 'string' },
    email: { kind: 'string' },
    phone: { kind: 'string' },
    company: { kind: 'string' },
    status: { kind: 'string', values: LEAD_STATUSES },
    source: { kind: 'string' },
    leadScore: { kind: 'number' },
    emailOptOut: { kind: 'boolean' },
    emailBounced: { kind: 'boolean' },
    convertedAt: { kind: 'date' },
    notes: { kind: 'string' },
  },
  contact: {
    ...common,
    firstName: { kind: 'string' },
    lastName: { kind: 'string' },
    email: { kind: 'string' },
    phone: { kind: 'string' },
    title: { kind: 'string' },
    stage: { kind: 'string', values: CONTACT_STAGES },
    accountId: { kind: 'string' },
    tags: { kind: 'list' },
    emailOptOut: { kind: 'boolean' },
    emailBounced: { kind: 'boolean' },
    source: { kind: 'string' },
    notes: { kind: 'string' },
  },
  opportunity: {
    ...common,
    name: { kind: 'string' },
    accountId: { kind: 'string' },
    accountName: { kind: 'string' },
    value: { kind: 'number' },
    stage: { kind: 'string', values: OPPORTUNITY_STAGES },
    probability: { kind: 'number' },
    closeDate: { kind: 'date' },
    closedDate: { kind: 'date' },
    lossReason: { kind: 'string' },
    source: { kind: 'string' },
    contactIds: { kind: 'list' },
    description: { kind: 'string' },
  },
};

/** Fields of the event itself that conditions may also name (e.g. the stage an opportunity left). */
export const EVENT_FIELDS: Partial<Record<TriggerKind, Record<string, FieldSpec>>> = {
  lead_status_changed: { previousStatus: { kind: 'string', values: LEAD_STATUSES } },
  opportunity_stage_changed: { previousStage: { kind: 'string', values: OPPORTUNITY_STAGES } },
  proposal_status_changed: {
    previousStage: { kind: 'string', values: OPPORTUNITY_STAGES },
    change: { kind: 'string', values: ['entered', 'left'] },
  },
};
