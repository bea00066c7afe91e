import { sqliteReadsOnLoop } from '@crm/store';
import { contacts } from './collections';
import { customFieldDefinitions } from './custom-field-collections';

describe('contacts collection', () => {
  it("keeps import-created emails unique with a sparse unique index on a declared string field, so the cleared key of a changed email (null) never collides, in SQLite (partial index) or MongoDB (partialFilterExpression $type 'string')", () => {
    expect(contacts.indexes).toContainEqual({ fields: ['importEmailKey'], unique: true, sparse: true });
    expect(contacts.fields?.importEmailKey).toBe('string');
  });
});

describe('custom field definitions', () => {
  it('are kept few enough in a workspace for SQLite to read them where they are asked (every record view reads them)', () => {
    const ofKind = [
      { field: 'workspaceId', op: 'eq' as const, value: 'ws_a' },
      { field: 'kind', op: 'eq' as const, value: 'contact' },
    ];
    expect(sqliteReadsOnLoop(customFieldDefinitions, { where: ofKind, sort: [{ field: 'createdAt', direction: 'asc' }] })).toBe(true);
  });
});
