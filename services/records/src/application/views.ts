/** Records with the values the service fills in on read: names from other records and counts. */
import type { AccountDocument, ContactDocument, LeadDocument, OpportunityDocument } from '../domain/model';

export type ContactView = ContactDocument & { accountName: string; assignedToName: string };
export type LeadView = LeadDocument & { assignedToName: string };
export type AccountView = AccountDocument & {
  assignedToName: string;
  contactCount: number;
  openOpportunityCount: number;
  openCaseCount: number;
};
export type OpportunityView = OpportunityDocument & { accountName: string; assignedToName: string };

export type { Caller } from '../domain/caller';

/** A create or update body: camelCase keys, null for JSON null, plus what the gateway already refused. */
export interface WriteInput {
  body: Record<string, unknown>;
  earlierErrors?: Record<string, string[]>;
  /** If-Match on an update: the version the record must still be at. */
  expectedVersion?: number;
}

/** Paging of a list: `offset` and `limit`, or a cursor from an earlier page's `nextCursor`. */
export interface Paging {
  offset?: number;
  limit?: number;
  cursor?: string;
}

export type AnyRecordView =
  | { type: 'contact'; record: ContactView }
  | { type: 'lead'; record: LeadView }
  | { type: 'account'; record: AccountView }
  | { type: 'opportunity'; record: OpportunityView };
