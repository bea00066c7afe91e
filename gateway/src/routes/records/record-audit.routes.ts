/**
 * The audit log with field history: `GET /api/audit-log/` (admins; API keys are closed out in
 * auth/route-scopes.ts) and `GET /api/{kind}/{id}/history/` (anyone who may read the kind). The
 * records service keeps the entries and names users; API keys are named here, from auth's list.
 */
import { Router, type Response } from 'express';
import { DomainError } from '@crm/observability';
import { adminOnly } from '../../auth/admin-guard';
import { GRPC_DEADLINE_MS, type AuthClient } from '../../clients/auth-client';
import type { GatewayConfig } from '../../config';
import { idParameter, operation, type JsonSchema, type OpenApiPaths } from '../../openapi/operation';
import { callerContext } from '../../request-context';
import { pathId } from '../validate';
import { paginated, readListQuery, type ListQuery } from './list-query';
import { listParameters } from './record-routes';
import { type RecordsCall } from './records-call';
import { type RecordKind } from './record-kind';
import { answerSchema } from '../field-table';
import { pageSchema, pickAnswer, recordAnswer, t, type ResponseFields } from './record-shape';

const ACTIONS = ['created', 'updated', 'deleted', 'merged', 'converted', 'imported', 'erased'] as const;
const ACTOR_TYPES = ['user', 'apiKey', 'system'] as const;
const RECORD_KINDS = ['contact', 'lead', 'account', 'opportunity'] as const;
const FILTERS = ['recordId', 'recordKind', 'actorType', 'actorId', 'action', 'requestId', 'after', 'before'] as const;
type AuditFilter = (typeof FILTERS)[number];

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

interface AuditEntryMessage {
  id: string;
  occurredAt: string;
  action: string;
  recordKind: string;
  recordId: string;
  actorType: string;
  actorId: string;
  actorName: string;
  requestId: string;
  changesJson: string;
}

const actorSchema: JsonSchema = {
  type: 'object',
  required: ['type', 'id', 'name'],
  additionalProperties: false,
  properties: {
    type: t.choice(ACTOR_TYPES),
    id: t.string("A user id, the API key id (`key_...`) for a key's writes, or the system actor (automation)."),
    name: t.string("The user's or key's name; empty for the system actor or a name no longer known."),
  },
};

const changeSchema: JsonSchema = {
  type: 'object',
  required: ['from', 'to'],
  additionalProperties: false,
  properties: { from: {}, to: {} },
};

const entryFields: ResponseFields = {
  id: t.id('aud_'),
  occurredAt: t.timestamp(),
  action: t.choice(ACTIONS),
  recordKind: t.choice(RECORD_KINDS),
  recordId: t.string(),
  actor: actorSchema,
  requestId: t.string('The `X-Request-Id` of the request that made the change (an import job id for a queued import).'),
  changes: {
    type: 'object',
    description:
      'Every field the change changed, `{from, to}` (custom fields as `customFields.<key>`); a creation lists the initial values, a deletion the last ones. Values an erasure blanked read `"[erased]"`.',
    additionalProperties: changeSchema,
  },
};
const ENTRY = ['id', 'occurredAt', 'action', 'recordKind', 'recordId', 'actor', 'requestId', 'changes'] as const;
const entrySchema = answerSchema(pickAnswer(recordAnswer(entryFields), ENTRY));

/** The filters' values checked here: an unknown value or a bad timestamp is `400 {<filter>: [...]}`. */
function checkedFilters(list: ListQuery<AuditFilter>): Partial<Record<AuditFilter, string>> {
  const errors: Record<string, string[]> = {};
  const choices: Partial<Record<AuditFilter, readonly string[]>> = { recordKind: RECORD_KINDS, actorType: ACTOR_TYPES, action: ACTIONS };
  for (const [name, values] of Object.entries(choices) as [AuditFilter, readonly string[]][]) {
    const value = list.filters[name];
    if (value !== undefined && !values.includes(value)) errors[name] = [`Must be one of: ${values.join(', ')}.`];
  }
  for (const name of ['after', 'before'] as const) {
    const value = list.filters[name];
    if (value !== undefined && (!TIMESTAMP.test(value) || Number.isNaN(Date.parse(value))))
      errors[name] = ['Must be a timestamp, YYYY-MM-DDThh:mm:ssZ.'];
  }
  if (Object.keys(errors).length > 0) throw new DomainError('invalid_argument', 'Bad filter.', errors);
  return list.filters;
}

/** Key ids → names, from auth (revoked keys included); empty when auth cannot say. */
async function keyNames(auth: AuthClient, res: Response, messages: AuditEntryMessage[]): Promise<Map<string, string>> {
  if (!messages.some((m) => m.actorType === 'apiKey')) return new Map();
  try {
    const { apiKeys } = await auth.call('ListApiKeys', {}, callerContext(res), { timeoutMs: GRPC_DEADLINE_MS });
    return new Map(apiKeys.map((key) => [key.id, key.name]));
  } catch {
    return new Map();
  }
}

async function renderEntries(auth: AuthClient, res: Response, messages: AuditEntryMessage[]): Promise<Record<string, unknown>[]> {
  const keys = await keyNames(auth, res, messages);
  return messages.map((m) => ({
    id: m.id,
    occurredAt: m.occurredAt,
    action: m.action,
    recordKind: m.recordKind,
    recordId: m.recordId,
    actor: { type: m.actorType, id: m.actorId, name: m.actorType === 'apiKey' ? (keys.get(m.actorId) ?? '') : m.actorName },
    requestId: m.requestId,
    changes: JSON.parse(m.changesJson || '{}') as unknown,
  }));
}

/** GET /api/audit-log and each kind's /:id/history on a router of their own. */
export function auditRoutes(kinds: readonly RecordKind<string>[], call: RecordsCall, auth: AuthClient, config: GatewayConfig): Router {
  const router = Router();

  router.get('/api/audit-log', adminOnly(auth), async (req, res) => {
    const list = readListQuery(req, FILTERS, { cursor: true });
    const filters = checkedFilters(list);
    const request = { ...filters, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' };
    const answer = await call('ListAuditEntries', request, res);
    const entries = await renderEntries(auth, res, answer.entries as AuditEntryMessage[]);
    res.json(paginated(req, config, list, answer.total as number, entries, answer.nextCursor as string));
  });

  for (const kind of kinds)
    router.get(`${kind.path}/:id/history`, async (req, res) => {
      const id = pathId(req.params.id);
      const list = readListQuery(req, [], { cursor: true });
      const request = {
        history: true,
        recordKind: kind.singular,
        recordId: id,
        offset: list.offset,
        limit: list.limit,
        cursor: list.cursor ?? '',
      };
      const answer = await call('ListAuditEntries', request, res);
      const entries = await renderEntries(auth, res, answer.entries as AuditEntryMessage[]);
      res.json(paginated(req, config, list, answer.total as number, entries, answer.nextCursor as string));
    });
  return router;
}

/** The OpenAPI part of {@link auditRoutes}. */
export function auditPaths(kinds: readonly RecordKind<string>[]): OpenApiPaths {
  const page = pageSchema(entrySchema, 'A page of audit entries, newest first.', { cursor: true });
  const paths: OpenApiPaths = {
    '/api/audit-log/': {
      get: operation({
        operationId: 'listAuditEntries',
        summary: 'The audit log with field history',
        description:
          'Every change to a contact, lead, account or opportunity by any path (API with a user or a key, batch, import, automation, merge, conversion, erasure), newest first, each with the before and after of every field it changed. Written in the same commit as the change; kept 365 days, whatever became of the record. `requestId` finds the entries of one write (its response header `X-Request-Id`). Filters combine with AND; an unknown `recordKind`, `actorType` or `action`, or a bad `after`/`before`, is `400 {"<filter>": [...]}`. Admins only: members and API keys answer 403.',
        tags: ['audit log'],
        authenticated: true,
        roles: ['admin'],
        parameters: listParameters(
          [
            { name: 'recordId', description: "One record's entries.", schema: t.string() },
            { name: 'recordKind', description: 'One kind of record.', schema: t.choice(RECORD_KINDS) },
            { name: 'actorType', description: 'Who acted.', schema: t.choice(ACTOR_TYPES) },
            { name: 'actorId', description: 'A user id, an API key id (`key_...`), or the system actor.', schema: t.string() },
            { name: 'action', description: 'One action.', schema: t.choice(ACTIONS) },
            { name: 'requestId', description: 'The `X-Request-Id` of the request that made the changes.', schema: t.string() },
            { name: 'after', description: 'Entries that occurred after this timestamp (exclusive).', schema: t.timestamp() },
            { name: 'before', description: 'Entries that occurred before this timestamp (exclusive).', schema: t.timestamp() },
          ],
          { cursor: true },
        ),
        responses: { 200: { description: 'A page of audit entries.', schema: page } },
        errors: [400, 403],
      }),
    },
  };
  for (const kind of kinds)
    paths[`${kind.path}/{id}/history/`] = {
      get: operation({
        operationId: `${kind.singular}History`,
        summary: `The audit log of one ${kind.singular}`,
        description: `Every change to this ${kind.singular}, newest first, with the before and after of each changed field; kept after the ${kind.singular} is deleted or merged away. An id with no entries and no ${kind.singular}: 404.`,
        tags: [kind.tag],
        authenticated: true,
        parameters: [idParameter(`The ${kind.singular}'s id (\`${kind.idPrefix}...\`).`), ...listParameters([], { cursor: true })],
        responses: { 200: { description: `A page of the ${kind.singular}'s audit entries.`, schema: page } },
        errors: [400, 404],
      }),
    };
  return paths;
}
