/**
 * Workspace API keys in the settings: create (value shown once), list, revoke, usage. Creating and
 * revoking are settings writes, for logged-in admins only (auth/admin-guard.ts, mounted in app.ts),
 * so a leaked key can neither mint nor revoke keys; any caller of the workspace may read them.
 */
import { Router } from 'express';
import { z } from 'zod';
import { DomainError } from '@crm/observability';
import type { authV1 } from '@crm/grpc';
import { ACCOUNT_LIMITS, API_KEY_SCOPES, isApiKeyScope } from '@crm/vocabulary';
import { GRPC_DEADLINE_MS } from '../clients/auth-client';
import { oneTimeSecret } from '../idempotency/idempotent-posts';
import { idParameter, operation, ref, type OpenApiPaths } from '../openapi/operation';
import { callerContext } from '../request-context';
import type { RouteDeps, RouteModule } from './route-module';
import { bodyCheck, bodySchemaOf, textField, type BodyField, type BodyTable } from './field-table';
import { nullIfEmpty, parseBody, pathId } from './validate';

const scopesField = {
  check: z
    .array(z.string())
    .min(1, 'Give at least one scope, or leave scopes out for a key holding every scope.')
    .superRefine((scopes, ctx) => {
      const unknown = scopes.filter((scope) => !isApiKeyScope(scope));
      if (unknown.length > 0)
        ctx.addIssue({ code: 'custom', message: `Unknown scope: ${unknown.join(', ')}. Known scopes: ${API_KEY_SCOPES.join(', ')}.` });
    })
    .optional(),
  rules: {
    type: 'array',
    items: { type: 'string', enum: [...API_KEY_SCOPES] },
    minItems: 1,
    description:
      'What the key may do: `<family>:read`, or `<family>:write` (which includes read). Left out: every scope. Each operation names the scope it needs in `x-scope`.',
  },
} satisfies BodyField;

/** ISO 8601 with its offset: without one, the instant would depend on the server's zone. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

const expiresAtField = {
  check: z
    .string()
    .superRefine((value, ctx) => {
      const at = Date.parse(value);
      if (!TIMESTAMP.test(value) || Number.isNaN(at)) ctx.addIssue({ code: 'custom', message: 'Enter a valid ISO 8601 timestamp.' });
      else if (at <= Date.now()) ctx.addIssue({ code: 'custom', message: 'Ensure this timestamp is in the future.' });
    })
    .optional(),
  rules: {
    type: 'string',
    format: 'date-time',
    description: 'When the key stops working (401 from then on, on every gateway). Left out: never.',
  },
} satisfies BodyField;

const createApiKeyFields = {
  name: textField({ max: ACCOUNT_LIMITS.apiKeyName, trim: true, notBlank: true }, { required: true }),
  scopes: scopesField,
  expiresAt: expiresAtField,
} satisfies BodyTable;

export const createApiKeyBody = bodyCheck(createApiKeyFields);

function apiKeyItem(key: authV1.ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: key.createdAt,
    lastUsedAt: nullIfEmpty(key.lastUsedAt),
    scopes: key.scopes,
    expiresAt: nullIfEmpty(key.expiresAt),
  };
}

export function apiKeyRoutes(deps: RouteDeps): RouteModule {
  const { auth, authenticator, invalidation, logger } = deps;
  const options = { timeoutMs: GRPC_DEADLINE_MS };
  const router = Router();

  router.post('/api/settings/api-keys', oneTimeSecret, async (req, res) => {
    const input = parseBody(createApiKeyBody, req.body);
    const request = { name: input.name, scopes: input.scopes ?? [], expiresAt: input.expiresAt ?? '' };
    const created = await auth.call('CreateApiKey', request, callerContext(res), options);
    if (!created.apiKey) throw new DomainError('internal', 'CreateApiKey answered without the key.');
    const { id, name, prefix, createdAt, scopes, expiresAt } = created.apiKey;
    res.status(201).json({ id, name, key: created.key, prefix, createdAt, scopes, expiresAt: nullIfEmpty(expiresAt) });
  });

  router.get('/api/settings/api-keys', async (_req, res) => {
    const { apiKeys } = await auth.call('ListApiKeys', {}, callerContext(res), options);
    const results = apiKeys.filter((key) => !key.revokedAt).map(apiKeyItem);
    // The whole list on one page: like every list, it says where the next page starts (nowhere).
    res.json({ count: results.length, nextCursor: null, results });
  });

  router.delete('/api/settings/api-keys/:id', async (req, res) => {
    const id = pathId(req.params.id);
    await auth.call('RevokeApiKey', { id }, callerContext(res), options);
    // Here at once, and on every other replica through the channel.
    authenticator.apiKeys.revoke(id);
    try {
      await invalidation.publish({ kind: 'api_key_revoked', keyId: id });
    } catch (error) {
      logger.error(
        { err: error, keyId: id, requestId: res.locals.requestId },
        'could not publish an API key revocation; other replicas drop it within 60 s',
      );
    }
    res.status(204).end();
  });

  router.get('/api/settings/api-keys/:id/usage', async (req, res) => {
    const id = pathId(req.params.id);
    // Counts from this replica that haven't been sent yet; best effort, the read goes ahead anyway.
    await authenticator.usage.flush().catch(() => undefined);
    const usage = await auth.call('GetApiKeyUsage', { id }, callerContext(res), options);
    res.json({
      id: usage.id || id,
      lastUsedAt: nullIfEmpty(usage.lastUsedAt),
      total: usage.total,
      days: usage.days.map((d) => ({ date: d.date, count: d.count })),
    });
  });

  return { name: 'api-keys', access: 'authenticated', router, paths: apiKeyPaths() };
}

const keyId = idParameter('The API key id.');

/** The OpenAPI part of {@link apiKeyRoutes}. */
export function apiKeyPaths(): OpenApiPaths {
  return {
    '/api/settings/api-keys/': {
      post: operation({
        operationId: 'createApiKey',
        summary: 'Create a workspace API key',
        description:
          'The `key` value appears only in this response (it is stored hashed); a lost key is revoked and replaced. Needs a user login (403 with an API key). `scopes` limits what the key may do (every scope when left out; an unknown scope is a 422); `expiresAt` (a timestamp in the future, else 422) is when it stops working.',
        tags: ['api-keys'],
        authenticated: true,
        requestBody: bodySchemaOf(createApiKeyFields, 'create'),
        responses: { 201: { description: 'The key, shown once.', schema: ref('CreatedApiKey') } },
        errors: [403],
      }),
      get: operation({
        operationId: 'listApiKeys',
        summary: "List the workspace's active API keys (never their values)",
        tags: ['api-keys'],
        authenticated: true,
        responses: { 200: { description: 'The keys.', schema: ref('ApiKeyList') } },
        errors: [403],
      }),
    },
    '/api/settings/api-keys/{id}/': {
      delete: operation({
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description: 'The key stops working at once on every gateway replica.',
        tags: ['api-keys'],
        authenticated: true,
        parameters: [keyId],
        responses: { 204: { description: 'Revoked; no body.' } },
        errors: [403, 404],
      }),
    },
    '/api/settings/api-keys/{id}/usage/': {
      get: operation({
        operationId: 'getApiKeyUsage',
        summary: 'Requests made with an API key, per UTC day, and when it was last used',
        tags: ['api-keys'],
        authenticated: true,
        parameters: [keyId],
        responses: { 200: { description: 'Usage of the key.', schema: ref('ApiKeyUsage') } },
        errors: [403, 404],
      }),
    },
  };
}
