/**
 * GET /api/{contacts,leads,accounts,opportunities}/aggregate/: counts, sums, averages, minimums
 * and maximums of a kind's list (its own filters, `filter` and `search`), grouped by up to two
 * select-like fields or date buckets. The records service judges `groupBy` and `metrics` against
 * the kind's field descriptors (@crm/vocabulary), which this document lists from the same table.
 */
import type { recordsV1 } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import {
  AGGREGATE_BUCKETS,
  AGGREGATE_LIMITS,
  AGGREGATE_METRIC_OPS,
  CUSTOM_FIELDS_PREFIX,
  isBucketable,
  isGroupable,
  isMeasurable,
  RECORD_FILTER_FIELDS,
  type FilterRecordKind,
} from '@crm/vocabulary';
import type { Request, Router } from 'express';
import { operation, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import { CUSTOM_FIELD_FILTERS_DESCRIPTION, customFieldEquals, customFieldFiltersParameter, prefixedParameters } from './list-query';
import { filterDescription } from './record-query.routes';
import type { RecordsCall } from './records-call';
import type { QueryParameter, RecordKind } from './record-kind';

type KeyValue = string | number | boolean | null;

function keyValue(key: recordsV1.AggregateKey): KeyValue {
  switch (key.type) {
    case 'text':
      return key.text;
    case 'number':
      return key.number;
    case 'boolean':
      return key.flag;
    default:
      return null;
  }
}

/** A group's (or the total's) measures: only those asked, each op a map of field → value. */
function measures(group: recordsV1.AggregateGroup | null): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  if (group?.count !== undefined && group.count !== null) answer.count = group.count;
  for (const metric of group?.metrics ?? []) {
    const op = (answer[metric.op] ??= {}) as Record<string, number | null>;
    op[metric.field] = metric.value ?? null;
  }
  return answer;
}

/** Every parameter a single plain string; a bracketed name (`stage[$ne]`) is a 400, never an operator. */
function plainQuery(req: Request): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (/[[\]]/.test(name)) throw DomainError.invalid(`Query parameter "${name}" is not supported: parameters take plain values.`);
    if (typeof value !== 'string') throw DomainError.invalid(`Query parameter "${name}" must be given once, as a plain value.`);
    values[name] = value;
  }
  return values;
}

function names(kind: FilterRecordKind, test: (field: (typeof RECORD_FILTER_FIELDS)[FilterRecordKind][string]) => boolean): string[] {
  return Object.entries(RECORD_FILTER_FIELDS[kind])
    .filter(([, field]) => test(field))
    .map(([name]) => name);
}

export function groupByDescription(kind: FilterRecordKind): string {
  return (
    `Up to ${AGGREGATE_LIMITS.maxGroupBy} comma-separated keys: a select-like field (${names(kind, isGroupable).join(', ')}) ` +
    `or a date bucket \`<field>:${AGGREGATE_BUCKETS.join('|')}\` of ${names(kind, isBucketable).join(', ')} ` +
    "(the key holds the period's first day `YYYY-MM-DD`, weeks starting on Monday, by the UTC date). None: one group of every match. " +
    'A custom field is named `customFields.<key>` and works where a built-in field of its type does (a select like a choice, a date or datetime in buckets). ' +
    'An unknown field, a field that cannot be grouped by or a bad bucket: `400 {"groupBy": [...]}`.'
  );
}

export function metricsDescription(kind: FilterRecordKind): string {
  const numbers = names(kind, isMeasurable);
  return (
    `Comma-separated: \`count\`${numbers.length > 0 ? `, ${AGGREGATE_METRIC_OPS.map((op) => `\`${op}:<field>\``).join(', ')} over ${numbers.join(', ')}` : ''}; ` +
    `at most ${AGGREGATE_LIMITS.maxMetrics}, default \`count\`. A sum over no values is 0, an average, minimum or maximum over none is null. ` +
    'A number or integer custom field is measured as `customFields.<key>`. ' +
    'An unknown metric or field, or a field that is not a number: `400 {"metrics": [...]}`.'
  );
}

const NUMBERS_BY_FIELD: JsonSchema = { type: 'object', additionalProperties: { type: ['number', 'null'] } };

function measuresSchema(): Record<string, JsonSchema> {
  return {
    count: { type: 'integer', minimum: 0, description: 'Matches (when `count` was asked).' },
    ...Object.fromEntries(
      AGGREGATE_METRIC_OPS.map((op) => [op, { ...NUMBERS_BY_FIELD, description: `\`${op}:<field>\` asked, by field.` }]),
    ),
  };
}

/** The list's own filters and its search; paging and ordering mean nothing to an aggregate. */
function aggregateFilters(kind: RecordKind<string>): Array<QueryParameter<string>> {
  return kind.filters.filter((f) => f.name !== 'ordering');
}

/** Registers GET {kind}/aggregate on `router`. */
export function aggregateRoute(kind: RecordKind<string>, router: Router, call: RecordsCall): void {
  const type = kind.singular as FilterRecordKind;
  const listFilters = aggregateFilters(kind);
  router.get(`${kind.path}/aggregate`, async (req, res) => {
    const query = plainQuery(req);
    const filters: Record<string, string> = {};
    for (const { name } of listFilters) if (query[name]) filters[name] = query[name];
    const answer = await call(
      'AggregateRecords',
      {
        recordType: type,
        groupBy: query.groupBy ?? '',
        metrics: query.metrics ?? '',
        [kind.plural]: {
          ...kind.listRequest(filters),
          customFieldEquals: customFieldEquals(prefixedParameters(query, [CUSTOM_FIELDS_PREFIX])),
          filter: query.filter ?? '',
        },
      },
      res,
    );
    res.json({
      groups: answer.groups.map((group) => ({
        key: Object.fromEntries(group.key.map((key) => [key.name, keyValue(key)])),
        ...measures(group),
      })),
      total: measures(answer.total),
    });
  });
}

/** The OpenAPI part of {@link aggregateRoute}. */
export function aggregatePaths(kind: RecordKind<string>): OpenApiPaths {
  const type = kind.singular as FilterRecordKind;
  const listFilters = aggregateFilters(kind);
  const groupSchema: JsonSchema = {
    type: 'object',
    required: ['key'],
    properties: {
      key: {
        type: 'object',
        description: "The group's key by the names asked (`stage`, `closeDate:month`); null where unset.",
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
      },
      ...measuresSchema(),
    },
    additionalProperties: false,
  };
  const totalSchema: JsonSchema = { type: 'object', properties: measuresSchema(), additionalProperties: false };
  return {
    [`${kind.path}/aggregate/`]: {
      get: operation({
        operationId: `aggregate${kind.pluralName}`,
        summary: `Aggregate ${kind.plural}`,
        description:
          `Counts and metrics of the ${kind.plural} the list would hold with the same filters, computed by the store. ` +
          'Groups are ordered by key as `ordering` orders (strings by code point, unset keys last); only the metrics asked are answered. ' +
          CUSTOM_FIELD_FILTERS_DESCRIPTION,
        tags: [kind.tag],
        authenticated: true,
        parameters: [
          { name: 'groupBy', in: 'query', required: false, description: groupByDescription(type), schema: { type: 'string' } },
          { name: 'metrics', in: 'query', required: false, description: metricsDescription(type), schema: { type: 'string' } },
          ...listFilters.map((f) => ({ name: f.name, in: 'query', required: false, description: f.description, schema: f.schema })),
          customFieldFiltersParameter(),
          {
            name: 'filter',
            in: 'query',
            required: false,
            description: `URL-encoded JSON, ANDed with the other parameters. ${filterDescription(type)}`,
            schema: { type: 'string' },
          },
        ],
        responses: {
          200: {
            description: `Groups of ${kind.plural} and the total.`,
            schema: {
              type: 'object',
              required: ['groups', 'total'],
              properties: { groups: { type: 'array', items: groupSchema }, total: totalSchema },
              additionalProperties: false,
            },
          },
        },
        errors: [400],
      }),
    },
  };
}
