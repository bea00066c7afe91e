import { contactKind } from './contacts.routes';
import { fromTable, type RecordFields } from './record-fields';
import { answerSchema, renderAnswer } from '../field-table';
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
    const { answer } = fromTable(table, [search, 'name']);
    const message = { id: 'x_1', name: 'Ada', notes: 'n', createdAt: '2026-01-01T00:00:00Z', extra: 'not a field' };
    expect(renderAnswer(answer, message)).toEqual({ id: 'x_1', name: 'Ada', notes: 'n', createdAt: '2026-01-01T00:00:00Z' });
    expect(renderAnswer(answer, message, 'listed')).toEqual({ id: 'x_1', name: 'Ada' });
    expect(answerSchema(answer, 'listed')).toMatchObject({ required: ['id', 'name'], properties: { id: t.id('x_'), name: t.string() } });
  });

  it('answers a field the message leaves unset as null', () => {
    expect(renderAnswer(fromTable(table, ['name']).answer, { id: 'x_1' })).toEqual({ id: 'x_1', name: null, notes: null, createdAt: null });
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
    expect(written).toEqual(Object.keys(contactKind.answer).sort());
    expect(contactKind.write.readOnly).toEqual(['id', 'accountName', 'assignedToName', 'source', 'createdAt', 'updatedAt']);
  });
});
