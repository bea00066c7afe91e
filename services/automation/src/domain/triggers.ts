/**
 * What each trigger kind reacts to: the records event that raises it, the kind of record it
 * enrolls, and the fields of that record conditions may name (as the public API shows them).
 */
import {
  CONTACT_FIELDS,
  LEAD_FIELDS,
  LEAD_STATUSES,
  OPPORTUNITY_FIELDS,
  OPPORTUNITY_STAGES,
  type BuiltInField,
  type BuiltInFields,
} from '@crm/vocabulary';
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

const CONDITION_KIND: Record<BuiltInField['type'], FieldKind | undefined> = {
  id: 'string',
  text: 'string',
  email: 'string',
  externalId: 'string',
  choice: 'string',
  reference: 'string',
  number: 'number',
  integer: 'number',
  url: 'string',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'date',
  tags: 'list',
  references: 'list',
  address: undefined,
  customFields: undefined,
};

/** The fields of a kind described as data (@crm/vocabulary) that conditions may name. */
function conditionFieldsOf(fields: BuiltInFields): Record<string, FieldSpec> {
  const specs: Record<string, FieldSpec> = {};
  for (const [name, field] of Object.entries(fields)) {
    const kind = CONDITION_KIND[field.type];
    if (field.condition && kind) specs[name] = { kind, ...(field.choices ? { values: field.choices } : {}) };
  }
  return specs;
}

/** Fields conditions may name, per record type. */
export const RECORD_FIELDS: Record<RecordType, Record<string, FieldSpec>> = {
  lead: conditionFieldsOf(LEAD_FIELDS),
  contact: conditionFieldsOf(CONTACT_FIELDS),
  opportunity: conditionFieldsOf(OPPORTUNITY_FIELDS),
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
