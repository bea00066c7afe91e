/** Contacts: `/api/contacts/` CRUD and list, from the contact's field descriptors (@crm/vocabulary CONTACT_FIELDS). */
import { CONTACT_FIELDS } from '@crm/vocabulary';
import { recordFieldsOf } from './built-in-record-fields';
import { splitTags } from './list-query';
import { CREATED_RANGE, fromTable, orderingParameter, searchParameter } from './record-fields';
import type { RecordKind } from './record-kind';

type ContactFilter = 'externalId' | 'stage' | 'assignedTo' | 'search' | 'createdAfter' | 'createdBefore' | 'tags' | 'ordering';

const contactTable = fromTable<ContactFilter>(recordFieldsOf(CONTACT_FIELDS), [
  'externalId',
  'stage',
  'assignedTo',
  searchParameter(
    'Case-insensitive literal substring of the name ("first last"), email or phone; the whole value is one literal (no wildcards, words not split).',
  ),
  ...CREATED_RANGE,
  'tags',
  orderingParameter('contact'),
]);

export const contactKind: RecordKind<ContactFilter> = {
  singular: 'contact',
  plural: 'contacts',
  name: 'Contact',
  pluralName: 'Contacts',
  aName: 'a contact',
  path: '/api/contacts',
  tag: 'contacts',
  idPrefix: 'cnt_',
  ...contactTable,
  listRequest: (f) => ({
    externalId: f.externalId,
    stage: f.stage,
    assignedTo: f.assignedTo,
    search: f.search,
    createdAfter: f.createdAfter,
    createdBefore: f.createdBefore,
    tags: splitTags(f.tags),
    ordering: f.ordering,
  }),
  createDescription:
    'Requires `email` and at least one of `firstName`, `lastName`. Every failing field is listed in one 422 (missing, invalid choice, wrong type, unknown field, malformed email, an `accountId` that is not an account of the workspace). Read-only fields are ignored.',
  updateDescription:
    'Any subset of the writable fields; null clears a nullable field (`accountId` unlinks). Read-only fields (id, names, timestamps) are ignored, so a client may send back what it read.',
  listDescription: 'Paginated contact list items, newest first.',
  deleteDescription: 'Removes the contact with its notes and tasks; its activities stay in the audit log.',
  merge: 'MergeContact',
};
