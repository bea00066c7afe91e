/**
 * What an aggregate of a record list may ask (`groupBy`, `metrics`), judged against the kind's
 * field descriptors (@crm/vocabulary: select-like fields group as they are, date and timestamp
 * fields by a bucket, number fields take sum, avg, min and max), so a custom field plugs in as
 * one more descriptor. Every refusal is a 400 `{"groupBy": [...]}` or `{"metrics": [...]}`.
 */
import { DomainError } from '@crm/observability';
import {
  AGGREGATE_BUCKETS,
  AGGREGATE_LIMITS,
  AGGREGATE_METRIC_OPS,
  isBucketable,
  isGroupable,
  isMeasurable,
  type AggregateBucket,
  type AggregateMetricOp,
} from '@crm/vocabulary';
import type { FieldResolver } from './record-filter';

export interface AggregateGroupKey {
  /** As asked (`closeDate:month`): the answer's key name. */
  name: string;
  /** The stored document's path. */
  field: string;
  bucket?: AggregateBucket;
}

export interface AggregateMeasure {
  op: AggregateMetricOp;
  /** The public name (`value`): the answer's key within the op. */
  name: string;
  field: string;
}

export interface AggregateSpec {
  groupBy: AggregateGroupKey[];
  /** Whether `count` was asked. */
  count: boolean;
  measures: AggregateMeasure[];
}

function refused(parameter: 'groupBy' | 'metrics', messages: string[]): DomainError {
  return new DomainError('invalid_argument', `${parameter}: ${messages.join(' ')}`, { [parameter]: messages });
}

function items(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

export function parseGroupBy(text: string | undefined, fields: FieldResolver): AggregateGroupKey[] {
  const asked = items(text);
  if (asked.length > AGGREGATE_LIMITS.maxGroupBy) throw refused('groupBy', [`at most ${AGGREGATE_LIMITS.maxGroupBy} fields.`]);
  const errors: string[] = [];
  const keys: AggregateGroupKey[] = [];
  for (const name of asked) {
    const [fieldName = '', bucket, ...rest] = name.split(':');
    const field = fields(fieldName);
    if (!field) errors.push(`"${fieldName}" is not a field of this list.`);
    else if (bucket === undefined) {
      if (isGroupable(field)) keys.push({ name, field: field.stored ?? fieldName });
      else if (isBucketable(field))
        errors.push(`"${fieldName}" is a date: group it by ${AGGREGATE_BUCKETS.map((b) => `${fieldName}:${b}`).join(', ')}.`);
      else errors.push(`"${fieldName}" cannot be grouped by: only select-like fields and date buckets can.`);
    } else if (!isBucketable(field)) errors.push(`"${fieldName}" is not a date: it takes no bucket.`);
    else if (rest.length > 0 || !(AGGREGATE_BUCKETS as readonly string[]).includes(bucket)) {
      errors.push(`"${name}": the bucket must be one of ${AGGREGATE_BUCKETS.join(', ')}.`);
    } else keys.push({ name, field: field.stored ?? fieldName, bucket: bucket as AggregateBucket });
  }
  if (errors.length === 0 && new Set(keys.map((k) => k.name)).size < keys.length) errors.push('a field is named twice.');
  if (errors.length > 0) throw refused('groupBy', errors);
  return keys;
}

/** `count` when none are named. Repeats are served once. */
export function parseMetrics(text: string | undefined, fields: FieldResolver): { count: boolean; measures: AggregateMeasure[] } {
  const asked = [...new Set(items(text))];
  if (asked.length === 0) return { count: true, measures: [] };
  if (asked.length > AGGREGATE_LIMITS.maxMetrics) throw refused('metrics', [`at most ${AGGREGATE_LIMITS.maxMetrics} metrics.`]);
  const errors: string[] = [];
  const measures: AggregateMeasure[] = [];
  let count = false;
  for (const metric of asked) {
    if (metric === 'count') {
      count = true;
      continue;
    }
    const [op = '', fieldName, ...rest] = metric.split(':');
    if (!(AGGREGATE_METRIC_OPS as readonly string[]).includes(op) || fieldName === undefined || rest.length > 0) {
      errors.push(`"${metric}" is not a metric: count, or ${AGGREGATE_METRIC_OPS.map((o) => `${o}:<field>`).join(', ')}.`);
      continue;
    }
    const field = fields(fieldName);
    if (!field) errors.push(`"${fieldName}" is not a field of this list.`);
    else if (!isMeasurable(field)) errors.push(`"${fieldName}" is not a number field.`);
    else measures.push({ op: op as AggregateMetricOp, name: fieldName, field: field.stored ?? fieldName });
  }
  if (errors.length > 0) throw refused('metrics', errors);
  return { count, measures };
}

export function parseAggregate(groupBy: string | undefined, metrics: string | undefined, fields: FieldResolver): AggregateSpec {
  return { groupBy: parseGroupBy(groupBy, fields), ...parseMetrics(metrics, fields) };
}
