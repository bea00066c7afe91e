/** Opportunities: `/api/opportunities/` CRUD and list. */
import { FIELD_LIMITS, OPPORTUNITY_STAGES } from '@crm/vocabulary';
import type { RecordKind } from './record-routes';
import { fromTable, orderingParameter, searchParameter, type RecordFields, EXTERNAL_ID_FIELD, CUSTOM_FIELDS_FIELD } from './record-fields';
import { t } from './record-shape';

const OPPORTUNITY_FIELDS: RecordFields = {
  id: { answer: t.id('opp_'), listed: true },
  externalId: EXTERNAL_ID_FIELD,
  name: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.name }, required: true, listed: true },
  accountId: {
    answer: t.nullableString('The account (`acc_...`); null after the account was deleted.'),
    write: {
      type: 'string',
      nullable: true,
      description: 'Required on create: an account of the workspace (422 otherwise). Null unlinks on update.',
    },
    required: true,
    listed: true,
    filter: { description: 'The account id.' },
  },
  accountName: { answer: t.nullableString("The account's name (read-only)."), listed: true },
  value: { answer: t.number('Deal value.'), write: { type: 'number', minimum: 0, description: 'Default 0.' }, listed: true },
  stage: {
    answer: t.choice(OPPORTUNITY_STAGES),
    write: { type: 'string', choices: OPPORTUNITY_STAGES, description: 'Default `prospecting`.' },
    listed: true,
    filter: { description: 'A pipeline stage value.', schema: t.choice(OPPORTUNITY_STAGES) },
  },
  probability: {
    answer: t.integer('Percentage 0..100; follows the stage unless given.'),
    write: { type: 'integer', minimum: 0, maximum: 100, description: 'Default from the stage.' },
    listed: true,
  },
  closeDate: {
    answer: t.nullableDate('Expected close date `YYYY-MM-DD`, or null.'),
    write: { type: 'string', format: 'date', nullable: true },
    listed: true,
  },
  closedDate: {
    answer: t.nullableDate('Set to today on entering closed_won/closed_lost unless given; null otherwise.'),
    write: { type: 'string', format: 'date', nullable: true },
  },
  lossReason: { answer: t.nullableString(), write: { type: 'string', nullable: true, maxLength: FIELD_LIMITS.longText } },
  assignedTo: {
    answer: t.nullableString('Owner user id, or null.'),
    write: { type: 'string', nullable: true },
    listed: true,
    filter: { description: 'Owner user id.' },
  },
  assignedToName: { answer: t.nullableString("The owner's name (read-only).") },
  source: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.shortText }, listed: true },
  contactIds: {
    answer: t.strings('Contacts of the workspace (`cnt_...`).'),
    write: { type: 'strings', description: 'Contacts of the workspace (422 for any other id).' },
  },
  description: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.longText } },
  createdAt: { answer: t.timestamp(), listed: true },
  updatedAt: { answer: t.timestamp(), listed: true },
  customFields: CUSTOM_FIELDS_FIELD,
};

type OpportunityFilter =
  | 'externalId'
  | 'stage'
  | 'accountId'
  | 'assignedTo'
  | 'closeDateAfter'
  | 'closeDateBefore'
  | 'valueMin'
  | 'valueMax'
  | 'search'
  | 'ordering';

const opportunityTable = fromTable<OpportunityFilter>(OPPORTUNITY_FIELDS, [
  'externalId',
  'stage',
  'accountId',
  'assignedTo',
  { name: 'closeDateAfter', description: "closeDate on or after (ISO 8601; a timestamp's date part is used).", schema: t.string() },
  { name: 'closeDateBefore', description: 'closeDate on or before (ISO 8601).', schema: t.string() },
  {
    name: 'valueMin',
    description: 'value ≥ this decimal number (digits, an optional `-` and decimals; 400 otherwise).',
    schema: t.number(),
  },
  {
    name: 'valueMax',
    description: 'value ≤ this decimal number (digits, an optional `-` and decimals; 400 otherwise).',
    schema: t.number(),
  },
  searchParameter('Case-insensitive literal substring of the opportunity name (one literal, no wildcards).'),
  orderingParameter('opportunity'),
]);

export const opportunityKind: RecordKind<OpportunityFilter> = {
  singular: 'opportunity',
  plural: 'opportunities',
  name: 'Opportunity',
  pluralName: 'Opportunities',
  aName: 'an opportunity',
  path: '/api/opportunities',
  tag: 'opportunities',
  idPrefix: 'opp_',
  ...opportunityTable,
  listRequest: (f) => ({ ...f }),
  createDescription: 'Requires `name` and `accountId`. Every failing field is listed in one 422. Read-only fields are ignored.',
  updateDescription:
    'Any subset of the writable fields. Entering closed_won/closed_lost sets closedDate to today and probability from the stage unless given; null clears closeDate, closedDate, lossReason. Read-only fields are ignored.',
  listDescription: 'Paginated opportunity list items, newest first.',
  deleteDescription: 'Removes the opportunity with its notes and tasks; its activities stay in the audit log.',
};
