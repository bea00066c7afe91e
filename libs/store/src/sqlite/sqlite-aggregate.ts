/**
 * An aggregate (port.ts AggregateQuery) as SQL: one `GROUP BY` statement for the groups and one
 * for the total, over the same WHERE. Field names reach the SQL text only through
 * SqliteColumns (checked identifiers), buckets and metrics only from the tables below; every
 * condition value is a bound parameter.
 */
import { AggregateQuery, AggregateResult, AggregateRow, CollectionDefinition, DateBucket, GroupKey, Metric, Scalar } from '../port';
import { jsonPath, SqliteColumns } from './sqlite-columns';
import { SqlFragment, SqlValue, whereToSql } from './sqlite-query';

/**
 * The first day of a date's (or an ISO timestamp's, by its UTC date) period; NULL for anything
 * that is not a date. Weeks start on Monday: six days back, then forward to the next Monday.
 */
function bucketExpression(value: string, bucket: DateBucket): string {
  switch (bucket) {
    case 'day':
      return `date(${value})`;
    case 'week':
      return `date(${value}, '-6 days', 'weekday 1')`;
    case 'month':
      return `date(${value}, 'start of month')`;
    case 'quarter':
      return `date(${value}, 'start of month', printf('-%d months', (CAST(strftime('%m', ${value}) AS INTEGER) - 1) % 3))`;
    case 'year':
      return `date(${value}, 'start of year')`;
    default: {
      const unreachable: never = bucket;
      throw new Error(`Unknown bucket ${String(unreachable)}`);
    }
  }
}

/** Absent, null and '' are one unset key. */
function keyExpression(key: GroupKey, columns: SqliteColumns): string {
  const value = columns.expression(key.field);
  return key.bucket ? bucketExpression(value, key.bucket) : `nullif(${value}, '')`;
}

/** Only numbers count: a stray string is left out, as MongoDB's $sum and $avg leave it. */
function metricExpression(metric: Metric, columns: SqliteColumns): string {
  const value = columns.expression(metric.field);
  const number = `CASE WHEN typeof(${value}) IN ('integer', 'real') THEN ${value} END`;
  switch (metric.op) {
    case 'sum':
      // total(): 0.0 over no values, and no integer overflow.
      return `total(${number})`;
    case 'avg':
      return `avg(${number})`;
    case 'min':
      return `min(${number})`;
    case 'max':
      return `max(${number})`;
    default: {
      const unreachable: never = metric.op;
      throw new Error(`Unknown metric ${String(unreachable)}`);
    }
  }
}

/**
 * How a key's stored value reads back. SQLite's json_extract gives booleans as 1 and 0: a field
 * declared boolean is read back as one, an undeclared one is asked of json_type per group.
 */
type KeyReading = 'as-is' | 'boolean' | 'ask';

function keyReading(key: GroupKey, collection: CollectionDefinition<any>): KeyReading {
  if (key.bucket || key.field === 'id') return 'as-is';
  const declared = collection.fields?.[key.field];
  if (declared === 'boolean') return 'boolean';
  return declared ? 'as-is' : 'ask';
}

export interface AggregateStatements {
  groups: SqlFragment;
  total: SqlFragment;
  /** Turns the rows of both statements into the port's answer. */
  read(groups: SqlValue[][], total: SqlValue[][]): AggregateResult;
}

export function aggregateToSql(query: AggregateQuery, columns: SqliteColumns, collection: CollectionDefinition<any>): AggregateStatements {
  const where = whereToSql(query.where ?? [], columns);
  const keys = query.groupBy.map((key) => keyExpression(key, columns));
  const readings = query.groupBy.map((key) => keyReading(key, collection));
  const flags = query.groupBy.flatMap((key, i) =>
    readings[i] === 'ask' ? [`max(json_type(doc, ${jsonPath(key.field)}) IN ('true', 'false'))`] : [],
  );
  const metrics = query.metrics.map((metric) => metricExpression(metric, columns));
  const measures = ['count(*)', ...metrics].join(', ');
  const from = `FROM ${columns.table} WHERE ${where.sql}`;
  const groups: SqlFragment =
    keys.length === 0
      ? { sql: `SELECT ${measures} ${from}`, params: where.params }
      : {
          sql:
            `SELECT ${[...keys, ...flags].join(', ')}, ${measures} ${from} GROUP BY ${keys.join(', ')} ` +
            `ORDER BY ${keys.map((k) => `(${k} IS NULL), ${k}`).join(', ')}`,
          params: where.params,
        };
  const total: SqlFragment = { sql: `SELECT ${measures} ${from}`, params: where.params };

  const row = (cells: SqlValue[], key: Scalar[]): AggregateRow => ({
    key,
    count: Number(cells[0] ?? 0),
    values: cells.slice(1).map((v) => (v === null ? null : Number(v))),
  });
  return {
    groups,
    total,
    read(groupRows, totalRows) {
      const width = keys.length + flags.length;
      const rows =
        keys.length === 0
          ? groupRows.filter((cells) => Number(cells[0]) > 0).map((cells) => row(cells, []))
          : groupRows.map((cells) => {
              let flag = keys.length;
              const key = keys.map((_, i): Scalar => {
                const value = cells[i] ?? null;
                const reading = readings[i];
                const asBoolean = reading === 'boolean' || (reading === 'ask' && Number(cells[flag++]) === 1);
                return asBoolean && value !== null ? value === 1 || value === '1' : value;
              });
              return row(cells.slice(width), key);
            });
      return { groups: rows, total: row(totalRows[0] ?? [0, ...metrics.map(() => null)], []) };
    },
  };
}
