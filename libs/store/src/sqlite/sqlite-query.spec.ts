import { Condition, defineCollection, StoredDocument } from '../port';
import { SqliteColumns } from './sqlite-columns';
import { countToSql, selectToSql, whereToSql } from './sqlite-query';

const contacts = defineCollection<StoredDocument>({
  name: 'contacts',
  scope: 'workspace',
  fields: { stage: 'string', createdAt: 'string' },
  indexes: [{ fields: ['stage', 'createdAt'] }, { fields: ['email'], unique: true, sparse: true }],
});
const columns = new SqliteColumns(contacts);

function where(...conditions: Condition[]) {
  return whereToSql(conditions, columns);
}

describe('SQL translation', () => {
  it('uses the indexed column for a declared or indexed field and json_extract otherwise', () => {
    expect(where({ field: 'stage', op: 'eq', value: 'lead' }).sql).toBe('"f:stage" = ?');
    expect(where({ field: 'email', op: 'eq', value: 'a@b.c' }).sql).toBe('"f:email" = ?');
    expect(where({ field: 'address.city', op: 'eq', value: 'Oslo' }).sql).toBe(`json_extract(doc, '$.address.city') = ?`);
  });

  it('maps id and workspaceId to their real columns', () => {
    expect(where({ field: 'workspaceId', op: 'eq', value: 'w' }, { field: 'id', op: 'eq', value: 'x' }).sql).toBe(
      'workspace_id = ? AND id = ?',
    );
  });

  it('binds every value as a parameter and never splices it into the SQL', () => {
    const hostile = "x' OR 1=1 --";
    const fragment = where(
      { field: 'stage', op: 'eq', value: hostile },
      { field: 'name', op: 'contains_text', value: hostile },
      { field: 'tags', op: 'has', value: hostile },
      { field: 'stage', op: 'in', values: [hostile, 'b'] },
    );
    expect(fragment.sql).not.toContain(hostile);
    expect(fragment.params).toEqual([hostile, hostile, hostile, hostile, 'b']);
  });

  it('pads in and nin lists to a power of two, so lists of any length share a few statement texts', () => {
    const three = where({ field: 'stage', op: 'in', values: ['a', 'b', 'c'] });
    expect(three.sql).toBe('"f:stage" IN (?, ?, ?, ?)');
    expect(three.params).toEqual(['a', 'b', 'c', 'c']);
    expect(where({ field: 'stage', op: 'in', values: ['a', 'b', 'c', 'd', 'e'] }).sql).toBe(
      where({ field: 'stage', op: 'in', values: ['v', 'w', 'x', 'y', 'z', 'u', 't'] }).sql,
    );
    const notIn = where({ field: 'stage', op: 'nin', values: ['a', null, 'b', 'c'] });
    expect(notIn.sql).toBe('("f:stage" IS NOT NULL AND "f:stage" NOT IN (?, ?, ?, ?))');
    expect(notIn.params).toEqual(['a', 'b', 'c', 'c']);
    expect(where({ field: 'stage', op: 'in', values: [null, 'a'] }).sql).toBe('("f:stage" IN (?) OR "f:stage" IS NULL)');
  });

  it('binds booleans as the 1 and 0 json_extract returns', () => {
    expect(where({ field: 'vip', op: 'eq', value: true }).params).toEqual([1]);
    expect(where({ field: 'vip', op: 'ne', value: false }).params).toEqual([0]);
  });

  it('matches null with IS NULL and keeps absent fields in ne', () => {
    expect(where({ field: 'stage', op: 'eq', value: null }).sql).toBe('"f:stage" IS NULL');
    expect(where({ field: 'stage', op: 'ne', value: 'lead' }).sql).toBe('"f:stage" IS NOT ?');
  });

  it('matches contains_text with instr, never LIKE or GLOB', () => {
    const { sql } = where({ field: 'name', op: 'contains_text', value: '%_' });
    expect(sql).toContain('instr(lower(');
    expect(sql).not.toMatch(/LIKE|GLOB/i);
  });

  it('turns an empty in list into false and an empty nin list into true', () => {
    expect(where({ field: 'stage', op: 'in', values: [] }).sql).toBe('0');
    expect(where({ field: 'stage', op: 'nin', values: [] }).sql).toBe('1');
  });

  it('keeps ranges to values of the bound type', () => {
    expect(where({ field: 'score', op: 'gt', value: 3 }).sql).toContain(`IN ('integer', 'real')`);
    expect(where({ field: 'createdAt', op: 'lt', value: '2026' }).sql).toContain(`typeof("f:createdAt") = 'text'`);
  });

  it('nests or-groups in parentheses', () => {
    const { sql } = where(
      { field: 'stage', op: 'eq', value: 'a' },
      {
        or: [
          [{ field: 'stage', op: 'eq', value: 'b' }],
          [
            { field: 'score', op: 'gt', value: 1 },
            { field: 'vip', op: 'exists', value: true },
          ],
        ],
      },
    );
    expect(sql).toMatch(/^"f:stage" = \? AND \(\("f:stage" = \?\) OR \(.+ AND .+\)\)$/);
  });

  it('breaks sort ties by id in the direction of the last key and binds paging', () => {
    const { sql, params } = selectToSql(
      { where: [{ field: 'stage', op: 'eq', value: 'lead' }], sort: [{ field: 'createdAt', direction: 'desc' }], limit: 20, offset: 40 },
      columns,
    );
    expect(sql).toBe('SELECT doc FROM "contacts" WHERE "f:stage" = ? ORDER BY "f:createdAt" DESC, id DESC LIMIT ? OFFSET ?');
    expect(params).toEqual(['lead', 20, 40]);
    expect(selectToSql({}, columns).sql).toBe('SELECT doc FROM "contacts" WHERE 1 ORDER BY id ASC');
  });

  it('counts with the same conditions', () => {
    expect(countToSql([{ field: 'stage', op: 'eq', value: 'x' }], columns)).toEqual({
      sql: 'SELECT count(*) FROM "contacts" WHERE "f:stage" = ?',
      params: ['x'],
    });
  });

  it('refuses field names that are not identifiers', () => {
    expect(() => where({ field: 'a; DROP TABLE contacts', op: 'eq', value: 1 })).toThrow(
      expect.objectContaining({ code: 'invalid_query' }),
    );
    expect(() => where({ field: "a')--", op: 'exists', value: true })).toThrow(expect.objectContaining({ code: 'invalid_query' }));
  });

  it('refuses a non-scalar value even when validation was skipped', () => {
    expect(() => where({ field: 'stage', op: 'eq', value: { $gt: '' } as never })).toThrow(
      expect.objectContaining({ code: 'invalid_query' }),
    );
  });

  describe('the filter language constructs', () => {
    it('negates a group so that a NULL comparison counts as not holding', () => {
      const fragment = where({ not: [{ field: 'stage', op: 'eq', value: 'new' }] });
      expect(fragment.sql).toBe('NOT coalesce(("f:stage" = ?), 0)');
      expect(fragment.params).toEqual(['new']);
    });

    it('tests emptiness without a bound value', () => {
      const fragment = where({ field: 'tags', op: 'empty', value: true });
      expect(fragment.sql).toContain(`json_array_length(doc, '$.tags') = 0`);
      expect(fragment.params).toEqual([]);
    });

    it('orders unset values high by an unset test before the value', () => {
      const { sql } = selectToSql({ sort: [{ field: 'stage', direction: 'asc', unset: 'high' }] }, columns);
      expect(sql).toContain(`ORDER BY ("f:stage" IS NULL OR "f:stage" = '') ASC, nullif("f:stage", '') ASC, id ASC`);
    });
  });
});
