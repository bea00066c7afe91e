/**
 * A contact's built-in fields, in answer order (built-in-fields.ts says what each flag means and
 * who reads it). A new contact field is one row here plus its proto fields.
 */
import {
  ASSIGNED_TO,
  ASSIGNED_TO_NAME,
  CREATED_AT,
  CUSTOM_FIELDS,
  EXTERNAL_ID,
  PERSON,
  UPDATED_AT,
  idField,
  type BuiltInFields,
} from './built-in-field';
import { FIELD_LIMITS } from '../limits';
import { CONTACT_STAGES } from '../records';

export const CONTACT_FIELDS = {
  id: idField('cnt_'),
  externalId: { ...EXTERNAL_ID, import: { label: 'External ID', headers: ['externalid'] } },
  firstName: {
    ...PERSON.firstName,
    import: { label: 'First name', headers: ['firstname', 'first', 'givenname', 'forename', 'fname', 'prenom', 'vorname'] },
  },
  lastName: {
    ...PERSON.lastName,
    import: { label: 'Last name', headers: ['lastname', 'last', 'surname', 'familyname', 'lname', 'nom', 'nachname'] },
  },
  email: {
    ...PERSON.email,
    import: {
      label: 'Email',
      headers: ['email', 'emailaddress', 'mail', 'emailid', 'primaryemail', 'workemail', 'businessemail', 'courriel'],
    },
  },
  phone: {
    type: 'text',
    maxLength: FIELD_LIMITS.shortText,
    write: { default: '' },
    listed: true,
    filter: { sortable: true },
    searchable: true,
    import: {
      label: 'Phone',
      headers: ['phone', 'phonenumber', 'telephone', 'tel', 'mobile', 'mobilephone', 'cell', 'cellphone', 'workphone', 'businessphone'],
    },
    condition: true,
    placeholder: true,
  },
  title: {
    type: 'text',
    description: 'Job title.',
    maxLength: FIELD_LIMITS.shortText,
    write: { default: '' },
    listed: true,
    filter: { sortable: true },
    import: { label: 'Title', headers: ['title', 'jobtitle', 'position', 'role'] },
    condition: true,
    placeholder: true,
  },
  stage: {
    type: 'choice',
    choices: CONTACT_STAGES,
    write: { default: 'new', description: 'Default `new`.' },
    listed: true,
    filter: { sortable: true, plainOrdering: true, parameter: 'A contact stage value.' },
    import: { label: 'Stage', headers: ['stage', 'contactstage', 'lifecyclestage', 'status'] },
    condition: true,
    placeholder: true,
  },
  accountId: {
    type: 'reference',
    target: 'account',
    description: 'The linked account (`acc_...`), or null.',
    nullable: true,
    write: { default: null, description: 'An account of the workspace (422 otherwise); null unlinks.' },
    listed: true,
    filter: { sortable: true },
    condition: true,
  },
  accountName: { type: 'text', description: "The linked account's name (read-only).", nullable: true, readTime: true, listed: true },
  assignedTo: ASSIGNED_TO,
  assignedToName: ASSIGNED_TO_NAME,
  tags: {
    type: 'tags',
    write: { default: [] },
    listed: true,
    filter: { sortable: false, parameter: 'Comma-separated tag names; contacts carrying every one of them.' },
    import: { label: 'Tags', headers: ['tags', 'tag', 'labels', 'label'] },
    condition: true,
  },
  emailOptOut: { type: 'boolean', write: { default: false }, condition: true },
  emailBounced: { type: 'boolean', write: { default: false }, condition: true },
  notes: {
    type: 'text',
    maxLength: FIELD_LIMITS.longText,
    write: { default: '' },
    filter: { sortable: true },
    import: { label: 'Notes', headers: ['notes', 'note', 'comments', 'comment', 'description'] },
    condition: true,
  },
  source: {
    type: 'text',
    description: "The source's name when the contact came from an import with a `source_uid` (read-only).",
    nullable: true,
    condition: true,
  },
  createdAt: CREATED_AT,
  updatedAt: UPDATED_AT,
  customFields: CUSTOM_FIELDS,
} as const satisfies BuiltInFields;
