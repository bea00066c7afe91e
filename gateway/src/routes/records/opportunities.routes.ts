/** Opportunities: `/api/opportunities/` CRUD and list. */
import { OPPORTUNITY_FIELDS } from '@crm/vocabulary';
import type { RecordKind } from './record-kind';
import { recordFieldsOf } from './built-in-record-fields';
import { fromTable, orderingParameter, searchParameter } from './record-fields';
import { t } from './record-shape';

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

const opportunityTable = fromTable<OpportunityFilter>(recordFieldsOf(OPPORTUNITY_FIELDS), [
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
