/**
 * A record as the public API shows it (camelCase, nulls kept, internal fields left out). Event
 * payloads and GetRecord's fields_json carry this shape, so automation conditions name the same
 * fields clients see.
 */
import type { AccountDocument, ContactDocument, LeadDocument, OpportunityDocument, RecordDocument, RecordType } from './model';

const INTERNAL = new Set([
  'workspaceId',
  'fullName',
  'emailKey',
  'importJobId',
  'importEmailKey',
  'emailClaimKey',
  'searchText',
  'uniqueClaims',
  'auditGroup',
]);

export type PublicRecord = Record<string, unknown>;

export function publicRecord(document: RecordDocument): PublicRecord {
  const out: PublicRecord = {};
  for (const [key, value] of Object.entries(document)) if (!INTERNAL.has(key)) out[key] = value;
  return out;
}

export function recordTypeOfId(id: string): RecordType | null {
  if (id.startsWith('cnt_')) return 'contact';
  if (id.startsWith('ld_')) return 'lead';
  if (id.startsWith('acc_')) return 'account';
  if (id.startsWith('opp_')) return 'opportunity';
  return null;
}

export type AnyRecord =
  | { type: 'contact'; document: ContactDocument }
  | { type: 'lead'; document: LeadDocument }
  | { type: 'account'; document: AccountDocument }
  | { type: 'opportunity'; document: OpportunityDocument };
