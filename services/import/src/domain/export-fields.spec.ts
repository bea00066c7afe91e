import { RECORD_LIST_ITEM_FIELDS } from '@crm/vocabulary';
import { exportColumns } from './export-fields';

describe('the columns of an export', () => {
  it("default to the list item's fields, then every custom field", () => {
    expect(exportColumns('lead', undefined).fields).toEqual(RECORD_LIST_ITEM_FIELDS.lead);
    expect(exportColumns('lead', [], ['size']).fields).toEqual([...RECORD_LIST_ITEM_FIELDS.lead, 'customFields.size']);
  });

  it('keep the order asked for', () => {
    expect(exportColumns('contact', ['email', 'id'])).toEqual({ fields: ['email', 'id'], errors: [] });
  });

  it('refuse a field the list item does not have, a custom field not defined, and a repeated name', () => {
    expect(exportColumns('lead', ['accountName']).errors).toHaveLength(1);
    expect(exportColumns('contact', ['customFields.size']).errors).toHaveLength(1);
    expect(exportColumns('contact', ['customFields.size'], ['size']).errors).toEqual([]);
    expect(exportColumns('contact', ['id', 'id']).errors).toHaveLength(1);
  });
});
