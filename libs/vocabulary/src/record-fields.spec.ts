import { PLAIN_ORDERINGS, RECORD_FILTER_FIELDS } from './record-fields';

describe('plain orderings', () => {
  it('are the GET lists orderings from before the filter language (their cursors and order stay as they were)', () => {
    const sorted = (fields: readonly string[]) => [...fields].sort();
    expect(sorted(PLAIN_ORDERINGS.contact)).toEqual(sorted(['createdAt', 'updatedAt', 'firstName', 'lastName', 'email', 'stage']));
    expect(sorted(PLAIN_ORDERINGS.lead)).toEqual(
      sorted(['createdAt', 'updatedAt', 'firstName', 'lastName', 'email', 'company', 'status', 'leadScore']),
    );
    expect(sorted(PLAIN_ORDERINGS.account)).toEqual(sorted(['createdAt', 'updatedAt', 'name', 'stage', 'industry']));
    expect(sorted(PLAIN_ORDERINGS.opportunity)).toEqual(
      sorted(['createdAt', 'updatedAt', 'name', 'value', 'stage', 'probability', 'closeDate']),
    );
  });

  it('are sortable fields of the filter language', () => {
    for (const [kind, fields] of Object.entries(PLAIN_ORDERINGS)) {
      for (const field of fields)
        expect({ kind, field, sortable: RECORD_FILTER_FIELDS[kind as 'contact'][field]?.sortable }).toEqual({
          kind,
          field,
          sortable: true,
        });
    }
  });
});
