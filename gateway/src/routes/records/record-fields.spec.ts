import { contactKind } from './contacts.routes';
import { fromTable, type RecordFields } from './record-fields';
import { t } from './record-shape';

const table: RecordFields = {
  id: { answer: t.id('x_'), listed: true },
  name: { answer: t.string(), write: { type: 'string' }, required: true, listed: true, filter: { description: 'Exact name.' } },
  notes: { answer: t.string(), write: { type: 'string' } },
  createdAt: { answer: t.timestamp() },
};
const search = { name: 'search', description: 'Anywhere.', schema: t.string() } as const;

describe('a record kind described by one table of fields', () => {
  it('answers every field in full and the listed ones in list items, in table order', () => {
    const kind = fromTable(table, [search, 'name']);
    expect(kind.fullFields).toEqual(['id', 'name', 'notes', 'createdAt']);
    expect(kind.listFields).toEqual(['id', 'name']);
    expect(Object.keys(kind.responseFields)).toEqual(kind.fullFields);
  });

  it('writes the fields with a write type, requires the required ones and ignores the others as read-only', () => {
    const { write } = fromTable(table, ['name']);
    expect(Object.keys(write.fields)).toEqual(['name', 'notes']);
    expect(write.required).toEqual(['name']);
    expect(write.readOnly).toEqual(['id', 'createdAt']);
  });

  it('keeps the filters in the order the list names them, a field filter described by its row', () => {
    expect(fromTable(table, [search, 'name']).filters).toEqual([search, { name: 'name', description: 'Exact name.', schema: t.string() }]);
  });

  it('refuses a filter row the list leaves out, and a listed filter whose row has none', () => {
    expect(() => fromTable(table, [search])).toThrow('Filters not in the list');
    expect(() => fromTable(table, ['name', 'notes'])).toThrow('notes is listed as a filter');
  });

  it('leaves contacts writing every answer field but the read-only ones', () => {
    const written = [...Object.keys(contactKind.write.fields), ...contactKind.write.readOnly].sort();
    expect(written).toEqual([...contactKind.fullFields].sort());
    expect(contactKind.write.readOnly).toEqual(['id', 'accountName', 'assignedToName', 'source', 'createdAt', 'updatedAt']);
  });
});
