import { RECORD_LIST_ITEM_FIELDS } from '@crm/vocabulary';
import { accountKind } from './accounts.routes';
import { contactKind } from './contacts.routes';
import { leadKind } from './leads.routes';
import { opportunityKind } from './opportunities.routes';

describe('the list item fields exports write by default', () => {
  it.each([
    ['contact', contactKind],
    ['lead', leadKind],
    ['account', accountKind],
    ['opportunity', opportunityKind],
  ] as const)('are the %s list fields of the gateway table, in order', (kind, table) => {
    // customFields is one column per custom field in exports (`customFields.<key>`), after the list item's own.
    const listed = Object.entries(table.answer).flatMap(([field, row]) => (row.listed ? [field] : []));
    expect(RECORD_LIST_ITEM_FIELDS[kind]).toEqual(listed.filter((field) => field !== 'customFields'));
  });
});
