/**
 * The records service's collections. `fields` are the top-level scalars lists filter or sort on
 * (SQLite gives each an indexed column; MongoDB indexes them); every index starts with
 * workspaceId implicitly and ends with id, so "filter, newest first, ties by id" reads off one index.
 */
import { defineCollection, leases, type CollectionDefinition, type WriteOp } from '@crm/store';
import { privacyCollections } from './privacy-collections';
import type {
  AccountDocument,
  ActivityDocument,
  ContactDocument,
  LeadDocument,
  NoteDocument,
  OpportunityDocument,
  RecordType,
  SourceDocument,
  TaskDocument,
} from '../domain/model';
import { auditCollections } from './audit-collections';
import { changeFeedCollections } from './change-feed-collections';
import { customFieldCollections } from './custom-field-collections';

export const contacts = defineCollection<ContactDocument>({
  name: 'contacts',
  scope: 'workspace',
  // `search` (domain/search-text.ts): a substring of searchText, through a text index.
  // The workspace's custom field values (custom-field-collections.ts): indexed per field while it exists.
  dynamicFields: ['customFields'],
  textSearch: ['searchText'],
  fields: {
    externalId: 'string',
    createdAt: 'string',
    updatedAt: 'string',
    firstName: 'string',
    lastName: 'string',
    email: 'string',
    emailKey: 'string',
    searchText: 'string',
    stage: 'string',
    accountId: 'string',
    assignedTo: 'string',
    importEmailKey: 'string',
    // Not phone or importJobId: nothing filters or sorts on them, and each index costs every insert:
    // most of all one whose values come in no order (names, emails), which changes a page of its own
    // for almost every row of a commit. 100,000 realistic contacts, store alone, commits of 250:
    // 9,500 rows/s with all of these, 27,700 without firstName, lastName, email, emailKey and
    // importEmailKey.
  },
  indexes: [
    // A client's own id: unique per workspace and kind, records without one left out.
    { fields: ['externalId'], unique: true, sparse: true },
    { fields: ['createdAt'] },
    { fields: ['updatedAt'] },
    { fields: ['firstName'] },
    { fields: ['lastName'] },
    { fields: ['email'] },
    { fields: ['stage', 'createdAt'] },
    { fields: ['assignedTo', 'createdAt'] },
    { fields: ['accountId', 'createdAt'] },
    { fields: ['emailKey'] },
    // Import-created contacts only (sparse): at most one per email in a workspace (contact-batches.ts).
    { fields: ['importEmailKey'], unique: true, sparse: true },
  ],
});

export const leads = defineCollection<LeadDocument>({
  name: 'leads',
  scope: 'workspace',
  // `search` (domain/search-text.ts): a substring of searchText, through a text index.
  // The workspace's custom field values (custom-field-collections.ts): indexed per field while it exists.
  dynamicFields: ['customFields'],
  textSearch: ['searchText'],
  fields: {
    externalId: 'string',
    createdAt: 'string',
    updatedAt: 'string',
    firstName: 'string',
    lastName: 'string',
    searchText: 'string',
    email: 'string',
    emailKey: 'string',
    emailClaimKey: 'string',
    company: 'string',
    status: 'string',
    source: 'string',
    assignedTo: 'string',
    leadScore: 'number',
  },
  indexes: [
    // A client's own id: unique per workspace and kind, records without one left out.
    { fields: ['externalId'], unique: true, sparse: true },
    { fields: ['createdAt'] },
    { fields: ['updatedAt'] },
    { fields: ['firstName'] },
    { fields: ['lastName'] },
    { fields: ['email'] },
    { fields: ['emailKey'] },
    // Leads a batch upsert on email created (sparse): at most one per email in a workspace (record-batches.ts).
    { fields: ['emailClaimKey'], unique: true, sparse: true },
    { fields: ['company'] },
    { fields: ['leadScore'] },
    { fields: ['status', 'createdAt'] },
    { fields: ['source', 'createdAt'] },
    { fields: ['assignedTo', 'createdAt'] },
  ],
});

export const accounts = defineCollection<AccountDocument>({
  name: 'accounts',
  scope: 'workspace',
  // `search` (domain/search-text.ts): a substring of searchText, through a text index.
  // The workspace's custom field values (custom-field-collections.ts): indexed per field while it exists.
  dynamicFields: ['customFields'],
  textSearch: ['searchText'],
  fields: {
    externalId: 'string',
    createdAt: 'string',
    updatedAt: 'string',
    name: 'string',
    searchText: 'string',
    website: 'string',
    industry: 'string',
    stage: 'string',
    assignedTo: 'string',
  },
  indexes: [
    // A client's own id: unique per workspace and kind, records without one left out.
    { fields: ['externalId'], unique: true, sparse: true },
    { fields: ['createdAt'] },
    { fields: ['updatedAt'] },
    { fields: ['name'] },
    { fields: ['stage', 'createdAt'] },
    { fields: ['industry', 'createdAt'] },
    { fields: ['assignedTo', 'createdAt'] },
  ],
});

export const opportunities = defineCollection<OpportunityDocument>({
  name: 'opportunities',
  scope: 'workspace',
  // `search` (domain/search-text.ts): a substring of searchText, through a text index.
  // The workspace's custom field values (custom-field-collections.ts): indexed per field while it exists.
  dynamicFields: ['customFields'],
  textSearch: ['searchText'],
  fields: {
    externalId: 'string',
    createdAt: 'string',
    updatedAt: 'string',
    name: 'string',
    searchText: 'string',
    value: 'number',
    stage: 'string',
    probability: 'number',
    closeDate: 'string',
    accountId: 'string',
    assignedTo: 'string',
  },
  indexes: [
    // A client's own id: unique per workspace and kind, records without one left out.
    { fields: ['externalId'], unique: true, sparse: true },
    { fields: ['createdAt'] },
    { fields: ['updatedAt'] },
    { fields: ['name'] },
    { fields: ['value'] },
    { fields: ['probability'] },
    { fields: ['closeDate'] },
    { fields: ['stage', 'createdAt'] },
    // The pipeline's aggregate (stage, close month, value): read from the index, no document parsed.
    { fields: ['stage', 'closeDate', 'value'] },
    { fields: ['assignedTo', 'createdAt'] },
    // Also serves the accounts' open-opportunity counts (accountId = ? AND stage IN open stages).
    { fields: ['accountId', 'stage'] },
    { fields: ['accountId', 'createdAt'] },
  ],
});

export const tasks = defineCollection<TaskDocument>({
  name: 'tasks',
  scope: 'workspace',
  fields: { relatedTo: 'string', createdAt: 'string' },
  indexes: [{ fields: ['createdAt'] }, { fields: ['relatedTo', 'createdAt'] }],
});

export const notes = defineCollection<NoteDocument>({
  name: 'notes',
  scope: 'workspace',
  fields: { relatedTo: 'string', createdAt: 'string' },
  indexes: [{ fields: ['relatedTo', 'createdAt'] }],
});

export const sources = defineCollection<SourceDocument>({
  name: 'sources',
  scope: 'workspace',
  fields: { createdAt: 'string', name: 'string' },
  indexes: [{ fields: ['createdAt'] }],
});

export const activities = defineCollection<ActivityDocument>({
  name: 'activities',
  scope: 'workspace',
  fields: { recordId: 'string', createdAt: 'string' },
  indexes: [{ fields: ['createdAt'] }, { fields: ['recordId', 'createdAt'] }],
});

export interface RecordDocuments {
  contact: ContactDocument;
  lead: LeadDocument;
  account: AccountDocument;
  opportunity: OpportunityDocument;
}

/** Where each kind of record is stored. */
export const RECORD_COLLECTIONS: { [T in RecordType]: CollectionDefinition<RecordDocuments[T]> } = {
  contact: contacts,
  lead: leads,
  account: accounts,
  opportunity: opportunities,
};

/** A domain event waiting to be published; written in the commit that caused it, deleted once published. */
export interface OutboxDocument {
  /** Also the bus message id, so consumers can drop redeliveries. */
  id: string;
  workspaceId: string;
  type: string;
  correlationId: string;
  occurredAt: string;
  payload: Record<string, unknown>;
  /** `unroutable`: no queue took it when published (outbox-relay.ts); the sweep tries it again. */
  status: 'pending' | 'published' | 'unroutable';
  /** Orders publishing within a workspace (the id's time part breaks ties). */
  createdAt: string;
  publishedAt: string | null;
  /** W3C trace context of the request that caused the event, so its trace continues through the bus. */
  traceHeaders?: Record<string, string>;
  /** The calling service's cause (automation's rules), carried onto the bus message. */
  cause?: string;
  /** Another service's event, already on the bus, kept here only to take its place in the change feed (messaging/feed-intake.ts). */
  external?: { messageId: string };
  /** Present on an event of HEAVY_EVENT_JSON_LENGTH or more (a group's): the relay then reads fewer at a time. */
  heavy?: true;
}

/**
 * An event of this many JSON characters (jsonLengthEstimate) or more is `heavy`: a batch write's
 * group (up to about 1 MB) or an import chunk's contacts (500 of them, about 250 KB). The relay
 * reads its usual 500 events at a time only while none of those waiting is heavy, so what one read
 * holds stays within about 500 × 64 KB = 32 MB.
 */
export const HEAVY_EVENT_JSON_LENGTH = 64 * 1024;

export const outbox = defineCollection<OutboxDocument>({
  name: 'outbox',
  scope: 'workspace',
  // Only the relay reads the outbox, always as "<status>, oldest first", after counting the heavy ones.
  fields: { status: 'string', heavy: 'boolean' },
  indexes: [{ fields: ['status', 'createdAt'] }, { fields: ['status', 'heavy'] }],
});

/**
 * Workspaces that have ever had an outbox event, so the relay's sweep can find pending events
 * without a cross-workspace query (the store keeps every workspace read scoped). `pendingMark` is
 * set in the commit that writes events and cleared by the sweep once none is left, so a sweep
 * visits only the workspaces with work (an idle install of many workspaces costs one query).
 */
export interface OutboxWorkspaceDocument {
  id: string;
  registeredAt: string;
  /** Present while the workspace may have events to relay: a new value with every commit that writes some. */
  pendingMark?: string;
  /** The replica relaying this workspace's events (messaging/relay-lease.ts), until `leaseExpiresAt`. */
  leaseHolder?: string;
  /** Epoch milliseconds; 0 once released. */
  leaseExpiresAt?: number;
  /** The change feed's last position (store/change-feed-collections.ts), advanced only by the lease holder. */
  feedSeq?: number;
}

export const outboxWorkspaces = defineCollection<OutboxWorkspaceDocument>({
  name: 'outbox_workspaces',
  scope: 'global',
  fields: { leaseHolder: 'string', leaseExpiresAt: 'number', pendingMark: 'string' },
});

/**
 * The write that marks a workspace as having events to relay, in the unit that writes them (so a
 * sweep that read the mark before this commit cannot clear it: the value has changed). Not
 * required: the relay registers the workspace before the commit, and an event is never refused.
 */
export function pendingEventsMark(workspaceId: string, mark: string): WriteOp {
  return { kind: 'update', collection: outboxWorkspaces, id: workspaceId, change: { set: { pendingMark: mark } }, required: false };
}

/** The stored answer of one BatchCreateContacts call, by idempotency key (hashed into the id). */
export interface BatchResultDocument {
  id: string;
  workspaceId: string;
  idempotencyKey: string;
  result: {
    created: { row: number; contactId: string }[];
    duplicates: { row: number; email: string; existingContactId: string; sameImport: boolean }[];
    errors: { row: number; message: string }[];
  };
  createdAt: string;
}

export const batchResults = defineCollection<BatchResultDocument>({
  name: 'batch_results',
  scope: 'workspace',
  // Retention's purge, in every workspace at once.
  indexes: [{ fields: ['createdAt'], acrossWorkspaces: true }],
});

export const recordsCollections = [
  contacts,
  leads,
  accounts,
  opportunities,
  tasks,
  notes,
  sources,
  activities,
  outbox,
  outboxWorkspaces,
  batchResults,
  // The retention sweeper's lease (store/retention-rules.ts).
  leases,
  // The suppression list and its key (privacy-collections.ts).
  ...privacyCollections,
  ...changeFeedCollections,
  ...auditCollections,
  ...customFieldCollections,
];
