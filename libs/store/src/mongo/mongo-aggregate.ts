/**
 * An aggregate (port.ts AggregateQuery) as MongoDB pipelines: `$match` (the query's filter, values
 * under explicit operators), `$group` by the keys, `$sort` by key with unset keys last; and a
 * second `$group` of everything for the total. Field paths come from checked names, buckets and
 * accumulators from the tables below, never from input.
 *
 * Dates are stored as strings (`YYYY-MM-DD`, or ISO timestamps in UTC): a bucket reads the first
 * ten characters as a date, truncates it (`$dateTrunc`, weeks starting on Monday) and writes the
 * period's first day back as `YYYY-MM-DD`; anything that is not a date is an unset key.
 */
import { AggregateQuery, AggregateResult, AggregateRow, DateBucket, GroupKey, Metric, Scalar } from '../port';
import { MongoFilter, mongoPath, whereToFilter } from './mongo-query';

function fieldValue(field: string): string {
  return `$${mongoPath(field)}`;
}

function bucketExpression(field: string, bucket: DateBucket): MongoFilter {
  const date = {
    $dateFromString: {
      dateString: { $substrCP: [{ $ifNull: [fieldValue(field), ''] }, 0, 10] },
      format: '%Y-%m-%d',
      timezone: 'UTC',
      onError: null,
      onNull: null,
    },
  };
  const truncated = { $dateTrunc: { date, unit: bucket, timezone: 'UTC', ...(bucket === 'week' ? { startOfWeek: 'monday' } : {}) } };
  return { $dateToString: { date: truncated, format: '%Y-%m-%d', timezone: 'UTC', onNull: null } };
}

/** Absent, null and '' are one unset key (null). */
function keyExpression(key: GroupKey): unknown {
  if (key.bucket) return bucketExpression(key.field, key.bucket);
  const value = { $ifNull: [fieldValue(key.field), null] };
  return { $cond: [{ $in: [value, [null, '']] }, null, value] };
}

/** Only numbers count, as SQLite's adapter counts them. */
function metricExpression(metric: Metric): MongoFilter {
  const value = fieldValue(metric.field);
  const number = { $cond: [{ $isNumber: value }, value, null] };
  return { [`$${metric.op}`]: number };
}

const keyName = (i: number) => `k${i}`;
const metricName = (i: number) => `m${i}`;
const unsetName = (i: number) => `u${i}`;

function measures(query: AggregateQuery): MongoFilter {
  const fields: MongoFilter = { count: { $sum: 1 } };
  query.metrics.forEach((metric, i) => (fields[metricName(i)] = metricExpression(metric)));
  return fields;
}

export interface AggregatePipelines {
  groups: MongoFilter[];
  total: MongoFilter[];
}

export function aggregatePipelines(query: AggregateQuery, searched?: ReadonlySet<string>): AggregatePipelines {
  const match = { $match: whereToFilter(query.where ?? [], searched) };
  const id: MongoFilter = {};
  query.groupBy.forEach((key, i) => (id[keyName(i)] = keyExpression(key)));
  const flags: MongoFilter = {};
  const sort: Record<string, 1> = {};
  query.groupBy.forEach((_, i) => {
    flags[unsetName(i)] = { $cond: [{ $eq: [`$_id.${keyName(i)}`, null] }, 1, 0] };
    sort[unsetName(i)] = 1;
    sort[`_id.${keyName(i)}`] = 1;
  });
  const groups =
    query.groupBy.length === 0
      ? [match, { $group: { _id: null, ...measures(query) } }]
      : [match, { $group: { _id: id, ...measures(query) } }, { $addFields: flags }, { $sort: sort }];
  return { groups, total: [match, { $group: { _id: null, ...measures(query) } }] };
}

type GroupDocument = Record<string, unknown> & { _id: Record<string, unknown> | null; count: number };

function row(document: GroupDocument | undefined, query: AggregateQuery, key: Scalar[]): AggregateRow {
  const values = query.metrics.map((metric, i) => {
    const value = document?.[metricName(i)];
    if (typeof value === 'number') return value;
    // A sum over no numbers is 0 (MongoDB already says so); the others are null.
    return metric.op === 'sum' ? 0 : null;
  });
  return { key, count: document?.count ?? 0, values };
}

/** The documents the pipelines yield as the port's answer. */
export function readAggregate(query: AggregateQuery, groups: GroupDocument[], total: GroupDocument[]): AggregateResult {
  return {
    groups: groups.map((document) =>
      row(
        document,
        query,
        query.groupBy.map((_, i) => (document._id?.[keyName(i)] ?? null) as Scalar),
      ),
    ),
    total: row(total[0], query, []),
  };
}
