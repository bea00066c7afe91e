/** Contacts: `/api/contacts/` CRUD and list. */
import { splitTags } from './list-query';
import type { RecordKind } from './record-routes';
import { t, type ResponseFields } from './record-shape';

export const CONTACT_STAGES = ['new', 'contacted', 'engaged', 'proposal_sent', 'negotiation', 'customer', 'inactive'] as const;
const ISO = 'ISO 8601 date or timestamp (any offset); 400 when not one.';

export const contactFields: ResponseFields = {
  id: t.id('cnt_'),
  firstName: t.string(),
  lastName: t.string(),
  email: t.string(),
  phone: t.string(),
  title: t.string('Job title.'),
  stage: t.choice(CONTACT_STAGES),
  accountId: t.nullableString('The linked account (`acc_...`), or null.'),
  accountName: t.nullableString("The linked account's name (read-only)."),
  assignedTo: t.nullableString('The owning user (`usr_...`), or null.'),
  assignedToName: t.nullableString("The owner's name (read-only)."),
  tags: t.strings(),
  emailOptOut: t.boolean(),
  emailBounced: t.boolean(),
  notes: t.string(),
  source: t.nullableString("The source's name when the contact came from an import with a `source_uid` (read-only)."),
  createdAt: t.timestamp(),
  updatedAt: t.timestamp(),
};

type ContactFilter = 'stage' | 'assignedTo' | 'search' | 'createdAfter' | 'createdBefore' | 'tags' | 'ordering';

export const contactKind: RecordKind<ContactFilter> = {
  singular: 'contact',
  plural: 'contacts',
  name: 'Contact',
  pluralName: 'Contacts',
  aName: 'a contact',
  path: '/api/contacts',
  tag: 'contacts',
  idPrefix: 'cnt_',
  write: {
    fields: {
      firstName: { type: 'string', description: 'At least one of firstName and lastName is required on create.' },
      lastName: { type: 'string' },
      email: { type: 'string', format: 'email' },
      phone: { type: 'string' },
      title: { type: 'string' },
      stage: { type: 'string', choices: CONTACT_STAGES, description: 'Default `new`.' },
      accountId: { type: 'string', nullable: true, description: 'An account of the workspace (422 otherwise); null unlinks.' },
      assignedTo: { type: 'string', nullable: true, description: 'A user of the workspace; null unassigns.' },
      tags: { type: 'strings', description: 'At most 50 tags of at most 50 characters.' },
      emailOptOut: { type: 'boolean' },
      emailBounced: { type: 'boolean' },
      notes: { type: 'string' },
    },
    readOnly: ['id', 'accountName', 'assignedToName', 'source', 'createdAt', 'updatedAt'],
    required: ['email'],
  },
  responseFields: contactFields,
  fullFields: [
    'id',
    'firstName',
    'lastName',
    'email',
    'phone',
    'title',
    'stage',
    'accountId',
    'accountName',
    'assignedTo',
    'assignedToName',
    'tags',
    'emailOptOut',
    'emailBounced',
    'notes',
    'source',
    'createdAt',
    'updatedAt',
  ],
  listFields: [
    'id',
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
  filters: [
    { name: 'stage', description: 'A contact stage value.', schema: t.choice(CONTACT_STAGES) },
    { name: 'assignedTo', description: 'Owner user id.', schema: t.string() },
    {
      name: 'search',
      description:
        'Case-insensitive literal substring of the name ("first last"), email or phone; the whole value is one literal (no wildcards, words not split). At most 200 characters.',
      schema: t.string(),
    },
    { name: 'createdAfter', description: `createdAt on or after; ${ISO}`, schema: t.string() },
    { name: 'createdBefore', description: `createdAt on or before; ${ISO}`, schema: t.string() },
    { name: 'tags', description: 'Comma-separated tag names; contacts carrying every one of them.', schema: t.string() },
    {
      name: 'ordering',
      description: 'createdAt, updatedAt, firstName, lastName, email or stage; `-` prefix for descending. Default `-createdAt`.',
      schema: t.string(),
    },
  ],
  listRequest: (f) => ({
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
