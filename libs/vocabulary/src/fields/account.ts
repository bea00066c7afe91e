/** An account's built-in fields, in answer order (built-in-field.ts says what each flag means and who reads it). */
import {
  ASSIGNED_TO,
  ASSIGNED_TO_NAME,
  CREATED_AT,
  CUSTOM_FIELDS,
  EXTERNAL_ID,
  UPDATED_AT,
  idField,
  type BuiltInFields,
} from './built-in-field';
import { FIELD_LIMITS } from '../limits';
import { ACCOUNT_STAGES } from '../records';

/** A count the service fills when the account is read. */
const count = (description: string, listed: boolean) =>
  ({ type: 'integer', description, readTime: true, ...(listed ? { listed } : {}) }) as const;

export const ACCOUNT_FIELDS = {
  id: idField('acc_'),
  externalId: EXTERNAL_ID,
  name: {
    type: 'text',
    maxLength: FIELD_LIMITS.name,
    write: { required: true },
    listed: true,
    filter: { sortable: true, plainOrdering: true },
    searchable: true,
  },
  website: {
    type: 'url',
    description: 'An http(s) URL, or empty.',
    maxLength: FIELD_LIMITS.url,
    write: { default: '', description: 'An http(s) URL; null or empty clears.' },
    listed: true,
    filter: { sortable: true },
    searchable: true,
  },
  industry: {
    type: 'text',
    maxLength: FIELD_LIMITS.shortText,
    write: { default: '' },
    listed: true,
    filter: { sortable: true, plainOrdering: true, selectLike: true, parameter: 'Exact industry.' },
  },
  companySize: {
    type: 'text',
    description: 'A range label.',
    maxLength: FIELD_LIMITS.shortText,
    write: { default: '' },
    listed: true,
    filter: { sortable: true },
  },
  annualRevenue: {
    type: 'number',
    description: 'Null when not set.',
    nullable: true,
    min: 0,
    write: { default: null, description: 'Null clears.' },
  },
  stage: {
    type: 'choice',
    choices: ACCOUNT_STAGES,
    write: { default: 'prospect', description: 'Default `prospect`.' },
    listed: true,
    filter: { sortable: true, plainOrdering: true, parameter: 'An account stage value.' },
  },
  phone: { type: 'text', maxLength: FIELD_LIMITS.shortText, write: { default: '' } },
  billingAddress: {
    type: 'address',
    description: 'Null when the account has none.',
    nullable: true,
    write: { default: null, description: 'street, city, state, postalCode, country (strings).' },
  },
  assignedTo: ASSIGNED_TO,
  assignedToName: ASSIGNED_TO_NAME,
  tags: { type: 'tags', write: { default: [] } },
  description: { type: 'text', maxLength: FIELD_LIMITS.longText, write: { default: '' }, filter: { sortable: true } },
  contactCount: count('Contacts linked to the account (read-only).', true),
  openOpportunityCount: count('Linked opportunities not closed (read-only).', true),
  openCaseCount: count('Open support cases (read-only; always 0 for now).', false),
  createdAt: CREATED_AT,
  updatedAt: UPDATED_AT,
  customFields: CUSTOM_FIELDS,
} as const satisfies BuiltInFields;
