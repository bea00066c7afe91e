/**
 * The one way a contact, lead, account or opportunity is created or updated, whoever asks: a
 * single POST or PATCH (the kinds' services) or a record of a batch (record-batches.ts). Each kind
 * says how a body becomes a record or a change and which events follow; `stageCreate` and
 * `stageUpdate` add the write, its activity, its audit entry and its events to a commit, so whatever a
 * single write gains (rules, audit, checks) a batch's records gain too.
 */
import { apiTimestamp } from '@crm/vocabulary';
import { accountChanges, newAccount, ACCOUNT_RULES } from '../domain/account-rules';
import { contactChanges, newContact, CONTACT_RULES } from '../domain/contact-rules';
import {
  accountCreated,
  contactCreated,
  leadCreated,
  leadEvents,
  opportunityCreated,
  opportunityEvents,
  recordUpdated,
  type DomainEvent,
} from '../domain/events';
import type { FieldTable, KnownReferences } from '../domain/field-rules';
import { ID_PREFIX } from '../domain/ids';
import { leadChanges, newLead, LEAD_RULES } from '../domain/lead-rules';
import type { AccountDocument, ContactDocument, LeadDocument, OpportunityDocument } from '../domain/model';
import { newOpportunity, opportunityChanges, OPPORTUNITY_RULES } from '../domain/opportunity-rules';
import { versionOf } from '../domain/record-version';
import type { RecordChanges, UpdateCondition } from '../store/record-changes';
import type { RecordWriter } from './record-writer';
import type { Caller, WriteInput } from './views';

export interface WritableDocuments {
  contact: ContactDocument;
  lead: LeadDocument;
  account: AccountDocument;
  opportunity: OpportunityDocument;
}
export type WritableKind = keyof WritableDocuments;

type RuleInput = WriteInput & { references: KnownReferences };

export interface KindWrites<D> {
  fields: FieldTable;
  idPrefix: string;
  /** The new record from a create body; throws the 422 with every failing field. */
  build(input: RuleInput, id: string, workspaceId: string, now: Date): D;
  /** The changed fields of an update; throws the 422 with every failing field. */
  change(current: D, input: RuleInput, now: Date): Partial<D>;
  created(record: D): DomainEvent[];
  updated(before: D, after: D): DomainEvent[];
  /** What must still hold of the stored record when the update lands (the status or stage its events name). */
  condition(current: D): UpdateCondition;
}

export const RECORD_WRITES: { [K in WritableKind]: KindWrites<WritableDocuments[K]> } = {
  contact: {
    fields: CONTACT_RULES,
    idPrefix: ID_PREFIX.contact,
    build: (input, id, ws, now) => newContact(input, id, ws, apiTimestamp(now)),
    change: (current, input, now) => contactChanges(current, input, apiTimestamp(now)),
    created: (record) => [contactCreated(record)],
    updated: (_before, after) => [recordUpdated('contact', after)],
    condition: () => ({}),
  },
  lead: {
    fields: LEAD_RULES,
    idPrefix: ID_PREFIX.lead,
    build: (input, id, ws, now) => newLead(input, id, ws, apiTimestamp(now)),
    change: (current, input, now) => leadChanges(current, input, apiTimestamp(now)),
    created: (record) => [leadCreated(record)],
    updated: (before, after) => [...leadEvents(before, after), recordUpdated('lead', after)],
    condition: (current) => ({ statusIs: current.status }),
  },
  account: {
    fields: ACCOUNT_RULES,
    idPrefix: ID_PREFIX.account,
    build: (input, id, ws, now) => newAccount(input, id, ws, apiTimestamp(now)),
    change: (current, input, now) => accountChanges(current, input, apiTimestamp(now)),
    created: (record) => [accountCreated(record)],
    updated: (_before, after) => [recordUpdated('account', after)],
    condition: () => ({}),
  },
  opportunity: {
    fields: OPPORTUNITY_RULES,
    idPrefix: ID_PREFIX.opportunity,
    build: (input, id, ws, now) => newOpportunity(input, id, ws, now),
    change: (current, input, now) => opportunityChanges(current, input, now),
    created: (record) => [opportunityCreated(record), ...opportunityEvents(null, record)],
    updated: (before, after) => [...opportunityEvents(before, after), recordUpdated('opportunity', after)],
    condition: (current) => ({ stageIs: current.stage }),
  },
};

/** Adds a new record, its `created` activity to the commit; answers its events. */
export function stageCreate<K extends WritableKind>(
  writer: RecordWriter,
  changes: RecordChanges,
  caller: Caller,
  kind: K,
  record: WritableDocuments[K],
  now: Date,
): DomainEvent[] {
  changes.insert(kind, record);
  changes.claims(kind, record.id, record.uniqueClaims ?? [], [], record.workspaceId);
  writer.activity(changes, caller, 'created', kind, record.id, apiTimestamp(now));
  writer.audit(changes, caller, 'created', kind, { id: record.id, before: null, after: record }, apiTimestamp(now));
  return RECORD_WRITES[kind].created(record);
}

export interface StagedUpdate<D> {
  after: D;
  events: DomainEvent[];
}

/**
 * Adds an update of `current` by `fields` (from the kind's `change`), its `updated` activity to
 * the commit; answers the record as it will be and its events. `expectedVersion`: If-Match.
 */
export function stageUpdate<K extends WritableKind>(
  writer: RecordWriter,
  changes: RecordChanges,
  caller: Caller,
  kind: K,
  current: WritableDocuments[K],
  fields: Partial<WritableDocuments[K]>,
  now: Date,
  expectedVersion?: number,
): StagedUpdate<WritableDocuments[K]> {
  const writes = RECORD_WRITES[kind] as KindWrites<WritableDocuments[K]>;
  const after = { ...current, ...fields, version: versionOf(current) + 1 } as WritableDocuments[K];
  changes.update(kind, current.id, fields, { ...writes.condition(current), expectedVersion });
  if ('uniqueClaims' in fields) changes.claims(kind, current.id, after.uniqueClaims ?? [], current.uniqueClaims ?? [], current.workspaceId);
  writer.activity(changes, caller, 'updated', kind, current.id, apiTimestamp(now));
  writer.audit(changes, caller, 'updated', kind, { id: current.id, before: current, after }, apiTimestamp(now));
  return { after, events: writes.updated(current, after) };
}

/** Fields every change sets whatever it holds, or derives from others: not a change in themselves. */
const BOOKKEEPING = new Set(['updatedAt', 'searchText', 'fullName', 'emailKey', 'importEmailKey', 'emailClaimKey', 'uniqueClaims']);

/** Whether applying `fields` to `current` would change anything a client can see. */
export function changesAnything(current: object, fields: object): boolean {
  const stored = current as Record<string, unknown>;
  return Object.entries(fields).some(([field, value]) => !BOOKKEEPING.has(field) && !sameValue(stored[field], value));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // An absent field (older records) and a null one are the same to a reader.
  if ((a === undefined || a === null) && (b === undefined || b === null)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
