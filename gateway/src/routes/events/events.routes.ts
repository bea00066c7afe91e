/**
 * GET /api/events/: the change feed, the workspace's webhook envelopes in the order they happened,
 * resumable by cursor. REST ↔ gRPC translation only; records keeps and numbers the feed
 * (services/records/src/messaging/feed-numbering.ts) and judges `after`, `types` and `limit`.
 */
import { DomainError } from '@crm/observability';
import { CHANGE_FEED_LIMITS, CHANGE_FEED_RETENTION_DAYS, WEBHOOK_EVENT_TYPES } from '@crm/vocabulary';
import { Router, type Request } from 'express';
import { lazyRecordsClient, RECORDS_DEADLINE_MS, type RecordsClient } from '../../clients/records-client';
import { operation, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import { callerContext } from '../../request-context';
import type { RouteDeps, RouteModule } from '../route-module';

const PATH = '/api/events';
const PARAMETERS = ['after', 'types', 'limit'] as const;

const envelopeSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'type', 'occurredAt', 'workspaceId', 'data'],
  properties: {
    id: { type: 'string', description: "The event's id: the X-CRM-Event-Id of its webhook deliveries." },
    type: { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] },
    occurredAt: { type: 'string', description: 'When it happened (ISO 8601, UTC).' },
    workspaceId: { type: 'string' },
    data: { type: 'object', description: "The webhook's data: `recordType` and `record` for a record's events, the job or run otherwise." },
  },
};

/** Each parameter at most once, as a plain value: a repeated or bracketed one is a 400, never an array or an operator. */
function feedQuery(req: Request): Record<(typeof PARAMETERS)[number], string> {
  const query = req.query as Record<string, unknown>;
  const values = { after: '', types: '', limit: '' };
  for (const name of PARAMETERS) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string')
      throw new DomainError('invalid_argument', `"${name}" must be given once.`, {
        [name]: ['Give this parameter once, as a plain value.'],
      });
    values[name] = value;
  }
  return values;
}

export function eventRoutes(
  deps: RouteDeps,
  records: RecordsClient = lazyRecordsClient(deps.config.RECORDS_GRPC_ADDR, deps.internalTls),
): RouteModule {
  const router = Router();
  router.get(PATH, async (req, res) => {
    const answer = await records.call('ListEvents', feedQuery(req), callerContext(res), { timeoutMs: RECORDS_DEADLINE_MS });
    res.json({ results: answer.events.map((event) => JSON.parse(event) as unknown), nextCursor: answer.nextCursor });
  });
  return { name: 'events', access: 'authenticated', router, paths: eventPaths() };
}

/** The OpenAPI part of {@link eventRoutes}. */
export function eventPaths(): OpenApiPaths {
  return {
    [`${PATH}/`]: {
      get: operation({
        operationId: 'listEvents',
        summary: 'The change feed',
        description:
          `Every event of the workspace of the last ${CHANGE_FEED_RETENTION_DAYS} days, each once, in the order they happened within the workspace, ` +
          "as the webhook envelopes (the same `id` as a delivery's `X-CRM-Event-Id`). Resume with `after` = the last page's `nextCursor`, " +
          'which is given also when nothing new has happened yet. API keys need `events:read`.',
        tags: ['events'],
        authenticated: true,
        parameters: [
          {
            name: 'after',
            in: 'query',
            required: false,
            description:
              'A `nextCursor` of this feed; none: from the oldest event kept. A cursor this server did not make for this workspace: `400 {"after": [...]}`.',
            schema: { type: 'string' },
          },
          {
            name: 'types',
            in: 'query',
            required: false,
            description: `Comma-separated event types (${WEBHOOK_EVENT_TYPES.join(', ')}); none: every type. An unknown one: \`400 {"types": [...]}\`.`,
            schema: { type: 'string' },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: `Events per page: default ${CHANGE_FEED_LIMITS.defaultLimit}; above ${CHANGE_FEED_LIMITS.maxLimit} served as ${CHANGE_FEED_LIMITS.maxLimit}. Not a positive integer: \`400 {"limit": [...]}\`.`,
            schema: { type: 'integer', minimum: 1 },
          },
        ],
        responses: {
          200: {
            description: 'The events after the cursor, oldest first, and the cursor to resume after the last of them.',
            schema: {
              type: 'object',
              required: ['results', 'nextCursor'],
              properties: {
                results: { type: 'array', items: envelopeSchema },
                nextCursor: {
                  type: 'string',
                  description: 'Resumes exactly after the last event of `results` (after `after` when there is none).',
                },
              },
              additionalProperties: false,
            },
          },
        },
        errors: [400],
      }),
    },
  };
}
