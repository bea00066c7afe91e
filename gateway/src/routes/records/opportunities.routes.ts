/** Opportunities: `/api/opportunities/` CRUD and list. */
import type { RecordKind } from './record-routes';
import { t, type ResponseFields } from './record-shape';

export const OPPORTUNITY_STAGES = ['prospecting', 'qualification', 'needs_analysis', 'proposal', 'negotiation', 'closed_won', 'closed_lost'] as const;

export const opportunityFields: ResponseFields = {
  id: t.id('opp_'),
  name: t.string(),
  accountId: t.nullableString('The account (`acc_...`); null after the account was deleted.'),
  accountName: t.nullableString('The account\'s name (read-only).'),
  value: t.number('Deal value.'),
  stage: t.choice(OPPORTUNITY_STAGES),
  probability: t.integer('Percentage 0..100; follows the stage unless given.'),
  closeDate: t.nullableDate('Expected close date `YYYY-MM-DD`, or null.'),
  closedDate: t.nullableDate('Set to today on entering closed_won/closed_lost unless given; null otherwise.'),
  lossReason: t.nullableString(),
  assignedTo: t.nullableString('Owner user id, or null.'),
  assignedToName: t.nullableString('The owner\'s name (read-only).'),
  source: t.string(),
  contactIds: t.strings('Contacts of the workspace (`cnt_...`).'),
  description: t.string(),
  createdAt: t.timestamp(),
  updatedAt: t.timestamp(),
};

type OpportunityFilter = 'stage' | 'accountId' | 'assignedTo' | 'closeDateAfter' | 'closeDateBefore' | 'valueMin' | 'valueMax' | 'search' | 'ordering';

export const opportunityKind: RecordKind<OpportunityFilter> = {
  singular: 'opportunity',
  plural: 'opportunities',
  name: 'Opportunity',
  pluralName: 'Opportunities',
  aName: 'an opportunity',
  path: '/api/opportunities',
  tag: 'opportunities',
  idPrefix: 'opp_',
  write: {
    fields: {
      name: { type: 'string' },
      accountId: { type: 'string', nullable: true, description: 'Required on create: an account of the workspace (422 otherwise). Null unlinks on update.' },
      value: { type: 'number', description: '≥ 0, default 0.' },
      stage: { type: 'string', choices: OPPORTUNITY_STAGES, description: 'Default `prospecting`.' },
      probability: { type: 'integer', description: '0..100; default from the stage.' },
      closeDate: { type: 'string', format: 'date', nullable: true },
      closedDate: { type: 'string', format: 'date', nullable: true },
      lossReason: { type: 'string', nullable: true },
      assignedTo: { type: 'string', nullable: true },
      source: { type: 'string' },
      contactIds: { type: 'strings', description: 'Contacts of the workspace (422 for any other id).' },
      description: { type: 'string' },
    },
    readOnly: ['id', 'accountName', 'assignedToName', 'createdAt', 'updatedAt'],
    required: ['name', 'accountId'],
  },
  responseFields: opportunityFields,
  fullFields: ['id', 'name', 'accountId', 'accountName', 'value', 'stage', 'probability', 'closeDate', 'closedDate', 'lossReason', 'assignedTo', 'assignedToName', 'source', 'contactIds', 'description', 'createdAt', 'updatedAt'],
  listFields: ['id', 'name', 'accountId', 'accountName', 'value', 'stage', 'probability', 'closeDate', 'assignedTo', 'source', 'createdAt', 'updatedAt'],
  filters: [
    { name: 'stage', description: 'A pipeline stage value.', schema: t.choice(OPPORTUNITY_STAGES) },
    { name: 'accountId', description: 'The account id.', schema: t.string() },
    { name: 'assignedTo', description: 'Owner user id.', schema: t.string() },
    { name: 'closeDateAfter', description: 'closeDate on or after (ISO 8601; a timestamp\'s date part is used).', schema: t.string() },
    { name: 'closeDateBefore', description: 'closeDate on or before (ISO 8601).', schema: t.string() },
    { name: 'valueMin', description: 'value ≥ this decimal number.', schema: t.string() },
    { name: 'valueMax', description: 'value ≤ this decimal number.', schema: t.string() },
    { name: 'search', description: 'Case-insensitive literal substring of the opportunity name (one literal, no wildcards).', schema: t.string() },
    { name: 'ordering', description: 'createdAt, updatedAt, name, value, stage, probability or closeDate; `-` for descending. Default `-createdAt`.', schema: t.string() },
  ],
  listRequest: (f) => ({ ...f }),
  createDescription: 'Requires `name` and `accountId`. Every failing field is listed in one 422. Read-only fields are ignored.',
  updateDescription:
    'Any subset of the writable fields. Entering closed_won/closed_lost sets closedDate to today and probability from the stage unless given; null clears closeDate, closedDate, lossReason. Read-only fields are ignored.',
  listDescription: 'Paginated opportunity list items, newest first.',
  deleteDescription: 'Removes the opportunity with its notes and tasks; its activities stay in the audit log.',
};
