/** Contacts: `/api/contacts/` CRUD and list, described by one table of fields. */
import { CONTACT_STAGES, FIELD_LIMITS } from '@crm/vocabulary';
import { splitTags } from './list-query';
import {
  CREATED_RANGE,
  fromTable,
  PERSON_FIELDS,
  TAGS_WRITE,
  orderingParameter,
  searchParameter,
  type RecordFields,
  EXTERNAL_ID_FIELD,
  CUSTOM_FIELDS_FIELD,
} from './record-fields';
import type { RecordKind } from './record-routes';
import { t } from './record-shape';

const CONTACT_FIELDS: RecordFields = {
  id: { answer: t.id('cnt_'), listed: true },
  externalId: EXTERNAL_ID_FIELD,
  ...PERSON_FIELDS,
  phone: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.shortText }, listed: true },
  title: { answer: t.string('Job title.'), write: { type: 'string', maxLength: FIELD_LIMITS.shortText }, listed: true },
  stage: {
    answer: t.choice(CONTACT_STAGES),
    write: { type: 'string', choices: CONTACT_STAGES, description: 'Default `new`.' },
    listed: true,
    filter: { description: 'A contact stage value.', schema: t.choice(CONTACT_STAGES) },
  },
  accountId: {
    answer: t.nullableString('The linked account (`acc_...`), or null.'),
    write: { type: 'string', nullable: true, description: 'An account of the workspace (422 otherwise); null unlinks.' },
    listed: true,
  },
  accountName: { answer: t.nullableString("The linked account's name (read-only)."), listed: true },
  assignedTo: {
    answer: t.nullableString('The owning user (`usr_...`), or null.'),
    write: { type: 'string', nullable: true, description: 'A user of the workspace; null unassigns.' },
    listed: true,
    filter: { description: 'Owner user id.' },
  },
  assignedToName: { answer: t.nullableString("The owner's name (read-only).") },
  tags: {
    answer: t.strings(),
    write: TAGS_WRITE,
    listed: true,
    filter: { description: 'Comma-separated tag names; contacts carrying every one of them.' },
  },
  emailOptOut: { answer: t.boolean(), write: { type: 'boolean' } },
  emailBounced: { answer: t.boolean(), write: { type: 'boolean' } },
  notes: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.longText } },
  source: { answer: t.nullableString("The source's name when the contact came from an import with a `source_uid` (read-only).") },
  createdAt: { answer: t.timestamp(), listed: true },
  updatedAt: { answer: t.timestamp(), listed: true },
  customFields: CUSTOM_FIELDS_FIELD,
};

type ContactFilter = 'externalId' | 'stage' | 'assignedTo' | 'search' | 'createdAfter' | 'createdBefore' | 'tags' | 'ordering';

const contactTable = fromTable<ContactFilter>(CONTACT_FIELDS, [
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

export const contactFields = contactTable.responseFields;

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
  mergeable: true,
};
