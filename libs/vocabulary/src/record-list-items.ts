/**
 * The fields of each kind's list item, in the order answers give them: what an export writes by
 * default. The gateway's list items read the same `listed` flags (fields/), so the list and its
 * export cannot drift.
 */
import { ACCOUNT_FIELDS, CONTACT_FIELDS, LEAD_FIELDS, OPPORTUNITY_FIELDS, fieldNames, type BuiltInFields } from './fields';
import type { FilterRecordKind } from './record-fields';

/** A kind's list item fields: its built-in fields that say `listed`, but its custom fields (an export's own columns). */
const listed = (fields: BuiltInFields): readonly string[] =>
  fieldNames(fields, (field) => field.listed === true && field.type !== 'customFields');

export const RECORD_LIST_ITEM_FIELDS: Record<FilterRecordKind, readonly string[]> = {
  contact: listed(CONTACT_FIELDS),
  lead: listed(LEAD_FIELDS),
  account: listed(ACCOUNT_FIELDS),
  opportunity: listed(OPPORTUNITY_FIELDS),
};

/** A name the service fills from a link, null when the link is unset: the name field → its id field. */
export const LINKED_NAME_FIELDS: Readonly<Record<string, string>> = { accountName: 'accountId', assignedToName: 'assignedTo' };
