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
import type { AccountStage, ContactStage, CustomFieldValues, LeadStatus, OpportunityStage, TaskStatus } from '@crm/vocabulary';

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

export interface ContactDocument extends RecordBase {
  firstName: string;
  lastName: string;
  /** "first last", searched as one string so "Ada Love" finds Ada Lovelace. */
  fullName: string;
  email: string;
  /** Lower-cased email, for duplicate detection. */
  emailKey: string;
  /** What `search` matches (see search-text.ts); internal. */
  searchText: string;
  phone: string;
  title: string;
  stage: ContactStage;
  accountId: string | null;
  assignedTo: string | null;
  tags: string[];
  emailOptOut: boolean;
  emailBounced: boolean;
  notes: string;
  source: string | null;
  importJobId: string | null;
  /**
   * The emailKey of a contact an import created, while it keeps that email: unique within the
   * workspace, so two imports racing with the same address cannot both create it (the second
   * commit fails and its batch is checked again). Absent on contacts made any other way, which may
   * share an email.
   */
  importEmailKey?: string | null;
}

export interface LeadDocument extends RecordBase {
  firstName: string;
  lastName: string;
  fullName: string;
  searchText: string;
  email: string;
  /** Lower-cased email, for matching a batch's records on email (absent on leads stored before it). */
  emailKey?: string;
  /**
   * The emailKey of a lead a batch upsert on email created, while it keeps that email: unique within
   * the workspace, so two batches racing with one address create one lead (as importEmailKey does for contacts).
   */
  emailClaimKey?: string | null;
  phone: string;
  company: string;
  status: LeadStatus;
  source: string;
  assignedTo: string | null;
  leadScore: number;
  emailOptOut: boolean;
  emailBounced: boolean;
  convertedAt: string | null;
  convertedContactId: string | null;
  notes: string;
}

export interface BillingAddress {
  street: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export interface AccountDocument extends RecordBase {
  name: string;
  searchText: string;
  website: string;
  industry: string;
  companySize: string;
  annualRevenue: number | null;
  stage: AccountStage;
  phone: string;
  billingAddress: BillingAddress | null;
  assignedTo: string | null;
  tags: string[];
  description: string;
}

export interface OpportunityDocument extends RecordBase {
  name: string;
  searchText: string;
  accountId: string | null;
  value: number;
  stage: OpportunityStage;
  probability: number;
  closeDate: string | null;
  closedDate: string | null;
  lossReason: string | null;
  assignedTo: string | null;
  source: string;
  contactIds: string[];
  description: string;
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
