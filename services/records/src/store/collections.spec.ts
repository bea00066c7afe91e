import { contacts } from './collections';

describe('contacts collection', () => {
  it("keeps import-created emails unique with a sparse unique index on a declared string field, so the cleared key of a changed email (null) never collides, in SQLite (partial index) or MongoDB (partialFilterExpression $type 'string')", () => {
    expect(contacts.indexes).toContainEqual({ fields: ['importEmailKey'], unique: true, sparse: true });
    expect(contacts.fields?.importEmailKey).toBe('string');
  });
});
