/**
 * The fields of each kind's list item, in the order answers give them: what an export writes by
 * default. The gateway's field tables mark the same fields `listed` (a spec there checks that the
 * two agree), so the list and its export cannot drift.
 */
import type { FilterRecordKind } from './record-fields';

export const RECORD_LIST_ITEM_FIELDS: Record<FilterRecordKind, readonly string[]> = {
  contact: [
    'id',
    'externalId',
    'firstName',
    'lastName',
    'email',
    'phone',
    'title',
    'stage',
    'accountId',
    'accountName',
    'assignedTo',
    'tags',
    'createdAt',
    'updatedAt',
  ],
  lead: [
    'id',
    'externalId',
    'firstName',
    'lastName',
    'email',
    'phone',
    'company',
    'status',
    'source',
    'assignedTo',
    'leadScore',
    'createdAt',
    'updatedAt',
  ],
  account: [
    'id',
    'externalId',
    'name',
    'website',
    'industry',
    'companySize',
    'stage',
    'assignedTo',
    'contactCount',
    'openOpportunityCount',
    'createdAt',
    'updatedAt',
  ],
  opportunity: [
    'id',
    'externalId',
    'name',
    'accountId',
    'accountName',
    'value',
    'stage',
    'probability',
    'closeDate',
    'assignedTo',
    'source',
    'createdAt',
    'updatedAt',
  ],
};

/** A name the service fills from a link, null when the link is unset: the name field → its id field. */
export const LINKED_NAME_FIELDS: Readonly<Record<string, string>> = { accountName: 'accountId', assignedToName: 'assignedTo' };
