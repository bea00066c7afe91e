/**
 * The records service's documents as stored and as the rules see them. Optional values are
 * stored as null (not left out), so list filters read them the same way; answers leave them unset.
 */

// The choice fields' values are the CRM's vocabulary (libs/vocabulary), shared with the gateway,
// import and automation.
export {
  ACCOUNT_STAGES,
  CONTACT_STAGES,
  LEAD_STATUSES,
  OPPORTUNITY_STAGES,
  TASK_STATUSES,
  type AccountStage,
  type ContactStage,
  type LeadStatus,
  type OpportunityStage,
  type TaskStatus,
} from '@crm/vocabulary';
import type {
  ACCOUNT_FIELDS,
  CONTACT_FIELDS,
  CustomFieldValues,
  LEAD_FIELDS,
  OPPORTUNITY_FIELDS,
  PostalAddress,
  StoredBuiltInValues,
  TaskStatus,
} from '@crm/vocabulary';

export type RecordType = 'contact' | 'lead' | 'account' | 'opportunity';
export const RECORD_TYPES: RecordType[] = ['contact', 'lead', 'account', 'opportunity'];

/** Who did a write, for the audit log. API-key calls arrive attributed to the workspace's system user. */
export interface Actor {
  id: string;
  type: 'user' | 'api_key' | 'system';
}

interface Base {
  id: string;
  workspaceId: string;
  createdAt: string;
  updatedAt: string;
  /** See record-version.ts; absent on records stored before versions existed. */
  version?: number;
}

/** What contacts, leads, accounts and opportunities share besides Base. */
interface RecordBase extends Base {
  /** A client's own id, unique per workspace and kind; null (or absent, on older records) when none. */
  externalId?: string | null;
  /** The workspace's custom field values (domain/custom-field-values.ts), set keys only; absent on older records. */
  customFields?: CustomFieldValues;
  /** The claims its values make on unique custom fields (custom-field-values.ts); internal. */
  uniqueClaims?: { id: string; key: string }[];
}

/** A contact's values of its built-in fields (@crm/vocabulary CONTACT_FIELDS). */
export type ContactValues = StoredBuiltInValues<typeof CONTACT_FIELDS>;

export interface ContactDocument extends RecordBase, ContactValues {
  /** "first last", searched as one string so "Ada Love" finds Ada Lovelace. */
  fullName: string;
  /** Lower-cased email, for duplicate detection. */
  emailKey: string;
  /** What `search` matches (see search-text.ts); internal. */
  searchText: string;
  importJobId: string | null;
  /** The audit group holding the entry of its import (audit-entry.ts); internal. */
  auditGroup?: string;
  /**
   * The emailKey of a contact an import created, while it keeps that email: unique within the
   * workspace, so two imports racing with the same address cannot both create it (the second
   * commit fails and its batch is checked again). Absent on contacts made any other way, which may
   * share an email.
   */
  importEmailKey?: string | null;
}

/** A lead's values of its built-in fields (@crm/vocabulary LEAD_FIELDS). */
export type LeadValues = StoredBuiltInValues<typeof LEAD_FIELDS>;

export interface LeadDocument extends RecordBase, LeadValues {
  fullName: string;
  searchText: string;
  /** Lower-cased email, for matching a batch's records on email (absent on leads stored before it). */
  emailKey?: string;
  /**
   * The emailKey of a lead a batch upsert on email created, while it keeps that email: unique within
   * the workspace, so two batches racing with one address create one lead (as importEmailKey does for contacts).
   */
  emailClaimKey?: string | null;
}

export type BillingAddress = PostalAddress;

/** An account's values of its built-in fields (@crm/vocabulary ACCOUNT_FIELDS). */
export type AccountValues = StoredBuiltInValues<typeof ACCOUNT_FIELDS>;

export interface AccountDocument extends RecordBase, AccountValues {
  searchText: string;
}

/** An opportunity's values of its built-in fields (@crm/vocabulary OPPORTUNITY_FIELDS). */
export type OpportunityValues = StoredBuiltInValues<typeof OPPORTUNITY_FIELDS>;

export interface OpportunityDocument extends RecordBase, OpportunityValues {
  searchText: string;
}

export interface TaskDocument {
  id: string;
  workspaceId: string;
  name: string;
  dueDate: string | null;
  assignedTo: string | null;
  relatedTo: string;
  status: TaskStatus;
  createdAt: string;
}

export interface NoteDocument {
  id: string;
  workspaceId: string;
  relatedTo: string;
  body: string;
  createdAt: string;
}

export interface SourceDocument {
  id: string;
  workspaceId: string;
  name: string;
  createdAt: string;
}

export type ActivityAction = 'created' | 'updated' | 'deleted' | 'converted' | 'merged';

export interface ActivityDocument {
  id: string;
  workspaceId: string;
  action: ActivityAction;
  recordType: RecordType;
  recordId: string;
  actorId: string;
  actorType: Actor['type'];
  createdAt: string;
  /** On a `merged` activity: the records merged into this one (now gone). */
  mergedIds?: string[];
}

export type RecordDocument = ContactDocument | LeadDocument | AccountDocument | OpportunityDocument;
