import Database from 'better-sqlite3';
import { defineCollection, type AggregateQuery } from '../port';
import { SqliteColumns } from './sqlite-columns';
import { aggregateToSql } from './sqlite-aggregate';
import { keepAlive } from './keep-alive';
import { createCollectionSchema } from './sqlite-schema';

const deals = defineCollection({
  name: 'deals',
  scope: 'workspace',
  fields: { stage: 'string', value: 'number', closeDate: 'string', searchText: 'string' },
  indexes: [{ fields: ['stage', 'closeDate', 'value'] }, { fields: ['closeDate'], unique: true, sparse: true }],
});
const columns = new SqliteColumns(deals);
const sql = (query: AggregateQuery) => aggregateToSql(query, columns, deals).sql;
const inWorkspace = { field: 'workspaceId', op: 'eq' as const, value: 'w1' };

describe('SQLite aggregate statements', () => {
  it('reads from a declared index holding every field the aggregate reads', () => {
    const statement = sql({
      where: [inWorkspace, { field: 'stage', op: 'ne', value: 'lost' }],
      groupBy: [{ field: 'stage' }, { field: 'closeDate', bucket: 'month' }],
      metrics: [{ op: 'avg', field: 'value' }],
    });
    expect(statement).toContain('INDEXED BY "deals__workspaceId__stage__closeDate__value__id"');
  });

  it('groups the matches as the index holds them, sorting only the groups, never every match', () => {
    const db = keepAlive(new Database(':memory:'));
    try {
      createCollectionSchema(db, deals, (text) => keepAlive(db.prepare(text)));
      for (const groupBy of [[{ field: 'stage' }], [{ field: 'stage' }, { field: 'closeDate', bucket: 'month' as const }]]) {
        const statement = aggregateToSql({ where: [inWorkspace], groupBy, metrics: [{ op: 'sum', field: 'value' }] }, columns, deals);
        const plan = keepAlive(db.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)).all(...statement.params) as {
          id: number;
          parent: number;
          detail: string;
        }[];
        const read = plan.find((step) => step.detail.startsWith('SEARCH deals USING'))!;
        expect(read.detail).toContain('deals__workspaceId__stage__closeDate__value__id');
        // A temporary B-tree beside the index read would sort every match before grouping them.
        expect(plan.filter((step) => step.parent === read.parent && step.detail.startsWith('USE TEMP B-TREE'))).toEqual([]);
      }
    } finally {
      db.close();
    }
  });

  it('names no index when a field is outside every index, or when it searches text', () => {
    expect(sql({ where: [inWorkspace], groupBy: [{ field: 'owner' }], metrics: [] })).not.toContain('INDEXED BY');
    const search = { field: 'searchText', op: 'contains_text' as const, value: 'acme' };
    expect(sql({ where: [inWorkspace, search], groupBy: [{ field: 'stage' }], metrics: [] })).not.toContain('INDEXED BY');
  });

  it('never names a sparse index, which misses documents', () => {
    expect(sql({ where: [inWorkspace], groupBy: [{ field: 'closeDate', bucket: 'day' }], metrics: [] })).toContain(
      'INDEXED BY "deals__workspaceId__stage__closeDate__value__id"',
    );
  });

  it('binds condition values as parameters, never as text', () => {
    const statement = aggregateToSql(
      { where: [inWorkspace, { field: 'stage', op: 'eq', value: "x' OR 1=1 --" }], groupBy: [{ field: 'stage' }], metrics: [] },
      columns,
      deals,
    );
    expect(statement.sql).not.toContain('OR 1=1');
    expect(statement.params).toEqual(['w1', "x' OR 1=1 --"]);
  });

  it('folds the total from the groups: sums and counts add up, minimums and maximums compare', () => {
    const statement = aggregateToSql(
      {
        groupBy: [{ field: 'stage' }],
        metrics: [
          { op: 'sum', field: 'value' },
          { op: 'avg', field: 'value' },
          { op: 'min', field: 'value' },
          { op: 'max', field: 'value' },
        ],
      },
      columns,
      deals,
    );
    // Per row: key, count, sum, avg's sum and count, min, max.
    const result = statement.read([
      ['a', 2, 10, 10, 2, 4, 6],
      ['b', 1, 0, 0, 0, null, null],
      [null, 3, 30, 30, 3, 1, 20],
    ]);
    expect(result.groups[1]).toEqual({ key: ['b'], count: 1, values: [0, null, null, null] });
    expect(result.total).toEqual({ key: [], count: 6, values: [40, 8, 1, 20] });
  });
});
