/**
 * The five routes every record kind has (create, list, read, update, delete) as REST ↔ proto
 * translation, built from one description of the kind. Kinds with more (lead conversion, an
 * account's contacts) add their routes to the same router.
 */
import { CUSTOM_FIELDS_PREFIX, PAGING, type FilterRecordKind } from '@crm/vocabulary';
import { Router, type Request } from 'express';
import type { GatewayConfig } from '../../config';
import { idParameter, operation, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import { pathId } from '../validate';
import {
  CUSTOM_FIELD_FILTERS_DESCRIPTION,
  customFieldEquals,
  customFieldFiltersParameter,
  paginated,
  readListQuery,
  type ListQuery,
} from './list-query';
import type { QueryParameter, RecordKind } from './record-kind';
import { answerSchema } from '../field-table';
import { pageSchema, renderRecord } from './record-shape';
import {
  answeredNotModified,
  etagOf,
  expectedVersion,
  IF_MATCH_PARAMETER,
  IF_NONE_MATCH_PARAMETER,
  withEtag,
  withNotModified,
} from './record-etag';
import { aggregatePaths, aggregateRoute } from './record-aggregate.routes';
import { batchPaths, batchRoute } from './record-batch.routes';
import { mergePaths, mergeRoute } from './record-merge.routes';
import { filterDescription, queryPaths, queryRoute } from './record-query.routes';
import { kindCall, type KindCall, type RecordsCall } from './records-call';
import { translateWrite, writeSchema } from './write-body';

export const PAGING_PARAMETERS = [
  {
    name: 'page',
    in: 'query',
    required: false,
    description: 'Page number, from 1 (default 1). 400 when not a positive integer.',
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Items per page (default ${PAGING.defaultLimit}); values above ${PAGING.maxLimit} are served as ${PAGING.maxLimit}. 400 when not a positive integer.`,
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: 'offset',
    in: 'query',
    required: false,
    description: 'Items to skip, with `limit`: an alternative to `page` (not both).',
    schema: { type: 'integer', minimum: 0 },
  },
];

export const CURSOR_PARAMETER = {
  name: 'cursor',
  in: 'query',
  required: false,
  description:
    'The `nextCursor` of an earlier page: the page after it, stable while records are added and removed. Send the same filters and `ordering` again; not with `page` or `offset` (400), and a cursor this list did not make is a 400.',
  schema: { type: 'string', maxLength: 2000, pattern: '^[A-Za-z0-9_.-]+$' },
};

/** Paging parameters (with `cursor` on cursor lists), then the list's filters. */
export function listParameters(filters: readonly QueryParameter[], options: { cursor?: boolean } = {}): Array<Record<string, unknown>> {
  return [
    ...PAGING_PARAMETERS,
    ...(options.cursor ? [CURSOR_PARAMETER] : []),
    ...filters.map((f) => ({ name: f.name, in: 'query', required: false, description: f.description, schema: f.schema })),
  ];
}

/** `filter`: the filter language's tree as URL-encoded JSON, ANDed with the list's other parameters. */
function filterParameter(kind: FilterRecordKind): Record<string, unknown> {
  return {
    name: 'filter',
    in: 'query',
    required: false,
    description: `URL-encoded JSON, ANDed with the other parameters. ${filterDescription(kind)}`,
    schema: { type: 'string' },
  };
}

type Render = (message: unknown) => unknown;

const body = (req: Request) => (req.body ?? {}) as Record<string, unknown>;

/** The kind's routes on a router of its own: the five, then its aggregate, batch, query and merge. */
export function recordRoutes<F extends string>(kind: RecordKind<F>, call: RecordsCall, config: GatewayConfig): Router {
  const byName = kindCall(call);
  const router = Router();
  const full: Render = (message) => renderRecord(kind.answer, message as object | null);
  const item: Render = (message) => renderRecord(kind.answer, message as object | null, 'listed');
  collectionRoutes(kind, router, byName, { full, item }, config);
  // Before `/:id`, which would take `aggregate` for an id.
  aggregateRoute(kind as RecordKind<string>, router, call);
  singleRoutes(kind, router, byName, full);
  batchRoute(kind as RecordKind<string>, router, call);
  queryRoute(kind as RecordKind<string>, router, call, item);
  if (kind.merge) mergeRoute(kind as RecordKind<string>, kind.merge, router, byName, full);
  return router;
}

/** POST and GET on the kind's collection: create, and the list. */
function collectionRoutes<F extends string>(
  kind: RecordKind<F>,
  router: Router,
  byName: KindCall,
  shapes: { full: Render; item: Render },
  config: GatewayConfig,
): void {
  router.post(kind.path, async (req, res) => {
    const write = translateWrite(body(req), kind.write);
    const answer = await byName(
      `Create${kind.name}`,
      { [kind.singular]: write.message, fieldMask: write.mask, invalidFields: write.invalid },
      res,
    );
    res
      .status(201)
      .set('ETag', etagOf(answer[kind.singular] as { version?: number }))
      .json(shapes.full(answer[kind.singular]));
  });

  router.get(kind.path, async (req, res) => {
    const list: ListQuery<F | 'filter'> = readListQuery(req, [...kind.filters.map((f) => f.name), 'filter' as const], {
      cursor: true,
      prefixes: [CUSTOM_FIELDS_PREFIX],
    });
    const { filter, ...filters } = list.filters;
    const answer = await byName(
      `List${kind.pluralName}`,
      {
        ...kind.listRequest(filters as Partial<Record<F, string>>),
        customFieldEquals: customFieldEquals(list.prefixed),
        filter: filter ?? '',
        offset: list.offset,
        limit: list.limit,
        cursor: list.cursor ?? '',
      },
      res,
    );
    const items = (answer[kind.plural] as unknown[]).map(shapes.item);
    res.json(paginated(req, config, list, answer.total as number, items, answer.nextCursor as string));
  });
}

/** GET, PATCH and DELETE on one record of the kind. */
function singleRoutes<F extends string>(kind: RecordKind<F>, router: Router, byName: KindCall, full: Render): void {
  router.get(`${kind.path}/:id`, async (req, res) => {
    const answer = await byName(`Get${kind.name}`, { id: pathId(req.params.id) }, res);
    if (answeredNotModified(req, res, answer[kind.singular] as { version?: number })) return;
    res.json(full(answer[kind.singular]));
  });

  router.patch(`${kind.path}/:id`, async (req, res) => {
    const id = pathId(req.params.id);
    const version = expectedVersion(req);
    const write = translateWrite(body(req), kind.write);
    const answer = await byName(
      `Update${kind.name}`,
      {
        id,
        [kind.singular]: write.message,
        updateMask: write.mask,
        invalidFields: write.invalid,
        ...(version === undefined ? {} : { expectedVersion: version }),
      },
      res,
    );
    res.set('ETag', etagOf(answer[kind.singular] as { version?: number })).json(full(answer[kind.singular]));
  });

  router.delete(`${kind.path}/:id`, async (req, res) => {
    const id = pathId(req.params.id);
    const version = expectedVersion(req);
    await byName(`Delete${kind.name}`, { id, ...(version === undefined ? {} : { expectedVersion: version }) }, res);
    res.status(204).end();
  });
}

/** The OpenAPI part of {@link recordRoutes}, in the same order. */
export function recordPaths<F extends string>(kind: RecordKind<F>): OpenApiPaths {
  const name = `${kind.aName[0]!.toUpperCase()}${kind.aName.slice(1)}`;
  const fullSchema = answerSchema(kind.answer, 'full', `${name} (single-record shape).`);
  const itemSchema = answerSchema(kind.answer, 'listed', `${name} as a list item.`);
  const any = kind as RecordKind<string>;
  return {
    ...collectionPaths(kind, itemSchema, fullSchema),
    ...singlePaths(kind, fullSchema),
    ...aggregatePaths(any),
    ...batchPaths(any),
    ...queryPaths(any, itemSchema),
    ...(kind.merge ? mergePaths(any, fullSchema) : {}),
  };
}

function collectionPaths<F extends string>(kind: RecordKind<F>, itemSchema: JsonSchema, fullSchema: JsonSchema): OpenApiPaths {
  return {
    [`${kind.path}/`]: {
      get: operation({
        operationId: `list${kind.pluralName}`,
        summary: `List ${kind.plural}`,
        description: `${kind.listDescription} ${CUSTOM_FIELD_FILTERS_DESCRIPTION}`,
        tags: [kind.tag],
        authenticated: true,
        parameters: [
          ...listParameters(kind.filters, { cursor: true }),
          filterParameter(kind.singular as FilterRecordKind),
          customFieldFiltersParameter(),
        ],
        responses: {
          200: {
            description: `A page of ${kind.plural}.`,
            schema: pageSchema(itemSchema, `A page of ${kind.plural}, newest first unless \`ordering\` says otherwise.`, { cursor: true }),
          },
        },
        errors: [400],
      }),
      post: withEtag(
        operation({
          operationId: `create${kind.name}`,
          summary: `Create ${kind.aName}`,
          description: kind.createDescription,
          tags: [kind.tag],
          authenticated: true,
          requestBody: writeSchema(kind.write, 'create'),
          responses: { 201: { description: `The new ${kind.singular}.`, schema: fullSchema } },
        }),
        201,
      ),
    },
  };
}

function singlePaths<F extends string>(kind: RecordKind<F>, fullSchema: JsonSchema): OpenApiPaths {
  const id = idParameter(`The ${kind.singular} id (\`${kind.idPrefix}...\`).`);
  return {
    [`${kind.path}/{id}/`]: {
      get: withNotModified(
        withEtag(
          operation({
            operationId: `get${kind.name}`,
            summary: `Read ${kind.aName}`,
            tags: [kind.tag],
            authenticated: true,
            parameters: [id, IF_NONE_MATCH_PARAMETER],
            responses: { 200: { description: `The ${kind.singular}.`, schema: fullSchema } },
            errors: [404],
          }),
          200,
        ),
      ),
      patch: withEtag(
        operation({
          operationId: `update${kind.name}`,
          summary: `Update ${kind.aName}`,
          description: kind.updateDescription,
          tags: [kind.tag],
          authenticated: true,
          parameters: [id, IF_MATCH_PARAMETER],
          requestBody: writeSchema(kind.write, 'update'),
          responses: { 200: { description: `The updated ${kind.singular}.`, schema: fullSchema } },
          errors: [404, 412],
        }),
        200,
      ),
      delete: operation({
        operationId: `delete${kind.name}`,
        summary: `Delete ${kind.aName}`,
        description: kind.deleteDescription,
        tags: [kind.tag],
        authenticated: true,
        parameters: [id, IF_MATCH_PARAMETER],
        responses: { 204: { description: 'Deleted; no body.' } },
        errors: [400, 404, 412],
      }),
    },
  };
}
