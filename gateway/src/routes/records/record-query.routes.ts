/**
 * POST /api/{contacts,leads,accounts,opportunities}/query/: the filter language over a kind's
 * list. The body's shape is checked here; the filter tree and the ordering are the records
 * service's to judge (domain/record-filter.ts there), against the fields it describes as data
 * (@crm/vocabulary RECORD_FILTER_FIELDS), which this document lists from the same table.
 */
import {
  FILTER_LIMITS,
  FILTER_OPERATORS,
  MAX_SEARCH_LENGTH,
  OPERATORS_BY_TYPE,
  PAGING,
  RECORD_FILTER_FIELDS,
  type FilterRecordKind,
} from '@crm/vocabulary';
import { DomainError } from '@crm/observability';
import type { Router } from 'express';
import { z } from 'zod';
import { operation, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import { bodyCheck, bodySchemaOf, type BodyTable } from '../field-table';
import { parseBody } from '../validate';
import type { RecordsCall } from './records-call';
import type { RecordKind } from './record-kind';

const CURSOR = /^[A-Za-z0-9_.-]{1,2000}$/;

/** The query's body on a kind: the gateway checks the shape; the filter tree and ordering are the service's. */
function queryFields(kind: FilterRecordKind) {
  return {
    filter: { check: z.unknown().optional(), rules: { type: 'object', description: filterDescription(kind) } },
    search: {
      check: z.string().max(MAX_SEARCH_LENGTH).optional(),
      rules: {
        type: 'string',
        maxLength: MAX_SEARCH_LENGTH,
        description: "A literal, case-insensitive substring, as the list's `search`.",
      },
    },
    // Judged by the records service, whose refusals are 400 {"ordering": [...]}; only its type is checked here.
    ordering: { check: z.unknown().optional(), rules: { type: 'string', description: orderingDescription(kind) } },
    limit: {
      check: z.number().int().min(1).optional(),
      rules: {
        type: 'integer',
        minimum: 1,
        description: `Items per page (default ${PAGING.defaultLimit}); values above ${PAGING.maxLimit} are served as ${PAGING.maxLimit}.`,
      },
    },
    cursor: {
      check: z.string().regex(CURSOR, 'cursor was not made by this list.').optional(),
      rules: {
        type: 'string',
        maxLength: 2000,
        pattern: '^[A-Za-z0-9_.-]+$',
        description: 'The `nextCursor` of an earlier page, sent with the same filter, search and ordering (else 400).',
      },
    },
  } satisfies BodyTable;
}

/** What the filter language takes on this kind, from the kind's field descriptors. */
export function filterDescription(kind: FilterRecordKind): string {
  const fields = Object.entries(RECORD_FILTER_FIELDS[kind])
    .map(([name, field]) => `\`${name}\` (${field.type}: ${OPERATORS_BY_TYPE[field.type].join(', ')})`)
    .join('; ');
  return (
    'A tree: `{"and": [f, ...]}`, `{"or": [f, ...]}`, `{"not": f}`, or a condition `{"field", "operator", "value"}`. ' +
    `Operators: ${FILTER_OPERATORS.join(', ')}; \`in\`/\`not_in\` take a list of 1 to ${FILTER_LIMITS.maxValues} values, \`is_empty\`/\`is_not_empty\` none; ` +
    '`neq` and `not_in` also match records where the field is unset; `contains` is a case-insensitive substring on text and membership on tags and multiselect fields. ' +
    `At most ${FILTER_LIMITS.maxDepth} levels of and/or/not and ${FILTER_LIMITS.maxLeaves} conditions. Fields: ${fields}; ` +
    'and `customFields.<key>`, a custom field of the kind, with the operators of its type (text, url, email: text; number, integer: number; select: choice; multiselect: tags; boolean, date, datetime alike). ' +
    'An unknown field or operator, a value of the wrong type, too deep or too many conditions: `400 {"filter": ["<path>: <message>"]}`.'
  );
}

export function orderingDescription(kind: FilterRecordKind): string {
  const sortable = Object.entries(RECORD_FILTER_FIELDS[kind])
    .filter(([, field]) => field.sortable)
    .map(([name]) => name);
  return (
    `Up to ${FILTER_LIMITS.maxOrderingFields} comma-separated fields of ${sortable.join(', ')}, or \`customFields.<key>\` (a custom field of the kind other than a multiselect); \`-\` for descending. Default \`-createdAt\`. ` +
    'Ties are broken by id in the direction of the last field; strings compare by code point; unset values come last ascending and first descending. ' +
    'A bad ordering: `400 {"ordering": [...]}`.'
  );
}

/** Registers POST {kind}/query on `router`; `item` renders a record as a list item. */
export function queryRoute(kind: RecordKind<string>, router: Router, call: RecordsCall, item: (message: unknown) => unknown): void {
  const type = kind.singular as FilterRecordKind;
  const queryBody = bodyCheck(queryFields(type));
  router.post(`${kind.path}/query`, async (req, res) => {
    const body = parseBody(queryBody, req.body ?? {});
    if (body.ordering !== undefined && typeof body.ordering !== 'string') {
      throw new DomainError('invalid_argument', 'ordering must be a string.', {
        ordering: ['must be a string of comma-separated fields.'],
      });
    }
    const answer = await call(
      'QueryRecords',
      {
        recordType: type,
        filter: body.filter === undefined ? '' : JSON.stringify(body.filter),
        search: body.search ?? '',
        ordering: body.ordering ?? '',
        limit: body.limit === undefined ? 0 : Math.min(body.limit, PAGING.maxLimit),
        cursor: body.cursor ?? '',
      },
      res,
    );
    const results = (answer[kind.plural] as unknown[]).map(item);
    res.json({ count: answer.total as number, results, nextCursor: (answer.nextCursor as string) || null });
  });
}

/** The OpenAPI part of {@link queryRoute}: `itemSchema` is the kind's list item. */
export function queryPaths(kind: RecordKind<string>, itemSchema: JsonSchema): OpenApiPaths {
  const type = kind.singular as FilterRecordKind;
  const requestBody = bodySchemaOf(queryFields(type), 'create');
  return {
    [`${kind.path}/query/`]: {
      post: operation({
        operationId: `query${kind.pluralName}`,
        summary: `Query ${kind.plural} with a filter`,
        description: `${kind.aName[0]!.toUpperCase()}${kind.aName.slice(1)} list through the filter language, a page at a time by cursor; \`count\` counts every match, on every page.`,
        tags: [kind.tag],
        authenticated: true,
        requestBody,
        responses: {
          200: {
            description: `A page of ${kind.plural}.`,
            schema: {
              type: 'object',
              required: ['count', 'results', 'nextCursor'],
              properties: {
                count: { type: 'integer', description: 'Every match, on cursor pages too.' },
                results: { type: 'array', items: itemSchema },
                nextCursor: {
                  type: ['string', 'null'],
                  description: 'Send it back as `cursor` (with the same body otherwise) for the next page; null on the last page.',
                },
              },
              additionalProperties: false,
            },
          },
        },
      }),
    },
  };
}
