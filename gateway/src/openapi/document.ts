/**
 * The OpenAPI 3.1 document of the public API, assembled from the paths each route module
 * declares beside its router, plus the shared components: error shapes, rate-limit headers,
 * the bearer scheme, and the contract decisions in prose.
 */
import { API_KEY_SCOPES, CUSTOM_FIELD_NAME_PATTERN, PAGING } from '@crm/vocabulary';
import { IDEMPOTENCY_COMPONENTS, withIdempotencyKeys } from './idempotency-key';
import { withHeads, type JsonSchema, type OpenApiPaths } from './operation';
import { ROLES_DESCRIPTION, withRoles } from './roles';
import { SCOPES_DESCRIPTION, withScopes } from './scopes';

const DESCRIPTION = `A JSON REST API over HTTPS for a CRM: contacts, leads, accounts, opportunities, automation and imports.

**Versions.** v1 is current. \`/api/v1/...\` serves exactly what \`/api/...\` serves; \`/api/v2/...\` and other unknown versions answer 404. A trailing slash on a path is optional.

**Authentication.** Every call except signup, login, token refresh, the OpenAPI document and the health probes carries \`Authorization: Bearer <token>\`, where the token is a user access token (a JWT, valid 1 hour) or a workspace API key (\`crm_...\`). A missing, malformed, expired or revoked credential answers \`401 {"detail": ...}\` with \`WWW-Authenticate: Bearer\`. Refresh tokens (30 days) rotate on every use; the refresh response carries the new one, and presenting an already rotated refresh token revokes its whole family. Revoking an API key takes effect at once on every gateway replica. Actions done with an API key are attributed to the workspace's system user. API keys cannot manage API keys: that takes an admin's login.

${ROLES_DESCRIPTION}

${SCOPES_DESCRIPTION}

**Rate limits.** Requests are counted per workspace (users and keys share one budget) per minute by plan: starter 100, growth 300, business 600, enterprise the workspace's own number. Requests without a valid credential are counted per client address (60 a minute); signup, login and token refresh per client address (20 a minute), and login also per email (10 a minute). Every response, errors included, carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds); a \`429 {"detail": ...}\` also carries \`Retry-After\` (seconds). The health probes are not counted.

**Errors.** \`400 {"detail"}\` for malformed JSON, a content type other than application/json, a body that is not a JSON object, or a bad query parameter (a record list's refused \`filter\` or \`ordering\` of the filter language: \`400 {"filter": [...]}\` or \`{"ordering": [...]}\`, each message naming the path); \`401\` as above; \`403\` when the caller may not do the action; \`404 {"detail": "Not found."}\` for an unknown path or a record that does not exist or belongs to another workspace; \`405 {"detail"}\` with \`Allow\` for a method a known path does not serve; \`409\` for a conflict; \`412\` when \`If-Match\` names a version the record has left; \`413\` for a body over the size limit; \`422 {"field": ["message", ...]}\` for body validation (missing required field, invalid choice, wrong type, unknown field, malformed email), with every failing field; \`429\` as above; \`500 {"detail": "Internal server error."}\`; \`503\` when a backing service is unavailable. Every response carries \`X-Request-Id\`; a client may send its own (letters, digits, \`._:-\`, up to 128 characters), anything else is replaced.

**Conventions.** Field names are camelCase. Timestamps are ISO 8601 UTC (\`YYYY-MM-DDThh:mm:ssZ\`); a value that is not set is \`null\`. Successful GET, login and refresh answer 200, creates 201, deletes 204 with no body. Paginated lists answer \`{count, next, previous, results}\` (${PAGING.defaultLimit} a page by default, \`limit\` at most ${PAGING.maxLimit}, larger values served as ${PAGING.maxLimit}), newest first; \`next\`/\`previous\` are absolute URLs that keep every filter. The lists the spec answers with count and results only (rules, templates, a rule's execution logs, an account's contacts) answer \`{count, results, nextCursor}\` and nothing else.`;

const error = (detail: string): JsonSchema => ({
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'string' } },
  additionalProperties: false,
  examples: [{ detail }],
});

const COMPONENTS = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description:
        'A user access token (JWT, RS256, 1 hour) from login/refresh, or a workspace API key (`crm_...`). What the caller may do depends on its role: admins everything; members and API keys everything but writes under /api/settings/ (see `x-roles` on each operation). An API key may be limited to scopes and may expire: each operation names the scope it needs in `x-scope`; a key outside its scopes gets 403 naming the scope, an expired key 401.',
    },
  },
  headers: {
    'X-RateLimit-Limit': { description: 'Requests allowed in the current one-minute window.', schema: { type: 'integer' } },
    'X-RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer' } },
    'X-RateLimit-Reset': { description: 'Unix time (seconds) at which the window resets.', schema: { type: 'integer' } },
    'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
    Allow: { description: 'The methods the path serves, e.g. `GET, HEAD, POST`.', schema: { type: 'string' } },
    'X-Request-Id': { description: "The request id (the client's own when it is safe, otherwise generated).", schema: { type: 'string' } },
    'WWW-Authenticate': {
      description: 'The Bearer challenge, e.g. `Bearer realm="crm", error="invalid_token"`.',
      schema: { type: 'string' },
    },
  },
  schemas: {
    Error: error('Not found.'),
    ParameterErrors: {
      type: 'object',
      description: 'The refused parameter → messages, each naming the path of what was refused (e.g. `filter.and[1].operator: ...`).',
      minProperties: 1,
      properties: {
        filter: { type: 'array', items: { type: 'string' } },
        ordering: { type: 'array', items: { type: 'string' } },
        groupBy: { type: 'array', items: { type: 'string' } },
        metrics: { type: 'array', items: { type: 'string' } },
        // The change feed's (GET /api/events/).
        after: { type: 'array', items: { type: 'string' } },
        types: { type: 'array', items: { type: 'string' } },
        limit: { type: 'array', items: { type: 'string' } },
        // The audit log's (GET /api/audit-log/; `after` as above).
        before: { type: 'array', items: { type: 'string' } },
        recordKind: { type: 'array', items: { type: 'string' } },
        actorType: { type: 'array', items: { type: 'string' } },
        action: { type: 'array', items: { type: 'string' } },
        // The custom field definitions' list (GET /api/settings/custom-fields/?kind=).
        kind: { type: 'array', items: { type: 'string' } },
      },
      // A record list's `?customFields.<key>=` filters.
      patternProperties: { [CUSTOM_FIELD_NAME_PATTERN]: { type: 'array', items: { type: 'string' } } },
      additionalProperties: false,
      examples: [{ filter: ['filter.and[0].field: unknown field "colour".'] }],
    },
    ValidationError: {
      type: 'object',
      description: 'Field name → messages, for every failing field. `nonFieldErrors` holds problems with the body as a whole.',
      additionalProperties: { type: 'array', items: { type: 'string' } },
      examples: [{ email: ['This field is required.'], extra: ['Unknown field.'] }],
    },
    LoginUser: {
      type: 'object',
      required: ['id', 'email', 'firstName', 'lastName', 'workspaceId'],
      properties: {
        id: { type: 'string', examples: ['usr_01J...'] },
        email: {
          description: "The user's email; empty for the workspace's system user (the caller of an API key), which has none.",
          anyOf: [
            { type: 'string', format: 'email' },
            { type: 'string', maxLength: 0 },
          ],
        },
        firstName: { type: 'string' },
        lastName: { type: 'string' },
        workspaceId: { type: 'string', examples: ['ws_01J...'] },
        role: { type: 'string', enum: ['admin', 'member', 'system'], description: '`system` is the workspace user API keys act as.' },
      },
    },
    Session: {
      type: 'object',
      required: ['access', 'refresh', 'user'],
      properties: {
        access: { type: 'string', description: 'Access token (JWT), valid 1 hour.' },
        refresh: { type: 'string', description: 'Refresh token, valid 30 days, rotated on every use.' },
        user: { $ref: '#/components/schemas/LoginUser' },
      },
    },
    TokenPair: {
      type: 'object',
      required: ['access', 'refresh'],
      properties: {
        access: { type: 'string', description: 'A new access token.' },
        refresh: { type: 'string', description: 'The new refresh token; the one presented is no longer valid.' },
      },
    },
    ApiKey: {
      type: 'object',
      required: ['id', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'scopes', 'expiresAt'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        prefix: { type: 'string', description: 'The first characters of the key, to recognise it.' },
        createdAt: { type: 'string', format: 'date-time' },
        lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
        scopes: {
          type: 'array',
          items: { type: 'string', enum: [...API_KEY_SCOPES] },
          description: 'What the key may do; every scope for a key created without any.',
        },
        expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'When the key stops working; null: never.' },
      },
    },
    CreatedApiKey: {
      type: 'object',
      required: ['id', 'name', 'key', 'prefix', 'createdAt', 'scopes', 'expiresAt'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        key: { type: 'string', description: 'The whole key. Shown only in this response; it is stored hashed.' },
        prefix: { type: 'string' },
        createdAt: { type: 'string', format: 'date-time' },
        scopes: {
          type: 'array',
          items: { type: 'string', enum: [...API_KEY_SCOPES] },
          description: 'What the key may do; every scope for a key created without any.',
        },
        expiresAt: { type: ['string', 'null'], format: 'date-time', description: 'When the key stops working; null: never.' },
      },
    },
    ApiKeyList: {
      type: 'object',
      description: 'Every active key at once (a workspace has few): `nextCursor` is always null.',
      required: ['count', 'nextCursor', 'results'],
      properties: {
        count: { type: 'integer' },
        nextCursor: { type: 'null' },
        results: { type: 'array', items: { $ref: '#/components/schemas/ApiKey' } },
      },
    },
    ApiKeyUsage: {
      type: 'object',
      required: ['id', 'lastUsedAt', 'total', 'days'],
      properties: {
        id: { type: 'string' },
        lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
        total: { type: 'integer', description: 'Requests made with the key over the days listed.' },
        days: {
          type: 'array',
          items: {
            type: 'object',
            required: ['date', 'count'],
            properties: { date: { type: 'string', format: 'date', description: 'UTC day.' }, count: { type: 'integer' } },
          },
        },
      },
    },
  },
  responses: {
    BadRequest: {
      description:
        'Malformed JSON, a wrong content type, or an invalid parameter: `{"detail"}`, or `{"filter": [...]}` / `{"ordering": [...]}` for a refused filter or ordering of a record list, `{"groupBy": [...]}` / `{"metrics": [...]}` for a refused aggregate, `{"after"|"types"|"limit": [...]}` for the change feed, `{"recordKind"|"actorType"|"action"|"after"|"before": [...]}` for the audit log.',
      headers: rateLimitHeaders(),
      content: {
        'application/json': {
          schema: { oneOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/ParameterErrors' }] },
          example: { detail: 'Malformed JSON in the request body.' },
        },
      },
    },
    Unauthorized: {
      ...errorResponse('Missing, malformed, expired or revoked credential.', 'Invalid token.'),
      headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' }, ...rateLimitHeaders() },
    },
    Forbidden: errorResponse('Authenticated, but not permitted to do this.', 'You do not have permission to perform this action.'),
    NotFound: errorResponse("No such path, or no such record in the caller's workspace.", 'Not found.'),
    Conflict: errorResponse('The request conflicts with the current state.', 'Already exists.'),
    PreconditionFailed: errorResponse(
      'If-Match names a version the record has since left.',
      'The record has changed since the version in If-Match; fetch it again and retry.',
    ),
    MethodNotAllowed: {
      ...errorResponse('The path exists but does not serve this method; `Allow` lists the methods it does.', 'Method "PUT" not allowed.'),
      headers: { Allow: { $ref: '#/components/headers/Allow' }, ...rateLimitHeaders() },
    },
    PayloadTooLarge: errorResponse('The body is over the size limit.', 'Request body is too large.'),
    ValidationFailed: {
      description: 'Body validation failed; every failing field is listed.',
      headers: rateLimitHeaders(),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ValidationError' } } },
    },
    TooManyRequests: {
      ...errorResponse('Rate limit exceeded.', 'Request was throttled. Expected available in 12 seconds.'),
      headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...rateLimitHeaders() },
    },
    InternalError: errorResponse('Server-side failure; nothing about it is disclosed.', 'Internal server error.'),
    ServiceUnavailable: errorResponse('A backing service is unavailable.', 'The service is temporarily unavailable; try again shortly.'),
  },
};

/** What every answer carries, errors included: the rate-limit headers and the request id. */
function rateLimitHeaders(): Record<string, unknown> {
  return {
    'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
    'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
    'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
    'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
  };
}

function errorResponse(description: string, example: string): Record<string, unknown> {
  return {
    description,
    headers: rateLimitHeaders(),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { detail: example } } },
  };
}

/** Every tag an operation names, in the order a reader meets them (openapi.spec.ts checks the two agree). */
export const TAGS = [
  { name: 'auth', description: 'Signup, login, tokens and the current user.' },
  { name: 'contacts', description: 'People, optionally linked to an account.' },
  { name: 'leads', description: 'Prospects, converted into a contact (and optionally an account and an opportunity).' },
  { name: 'accounts', description: 'Companies, with their contacts.' },
  { name: 'opportunities', description: 'Deals and their stages.' },
  { name: 'activities', description: "A record's activity log and notes." },
  {
    name: 'audit log',
    description: "Every change to a record with the before and after of each field (admins); a record's own history is under its kind.",
  },
  { name: 'tasks', description: 'To-dos attached to records.' },
  { name: 'sources', description: 'Lead and contact sources.' },
  { name: 'import', description: 'CSV imports of contacts: asynchronous jobs and the synchronous import.' },
  { name: 'automation', description: 'Automation rules, their steps, templates and runs.' },
  { name: 'webhooks', description: 'Outbound event delivery to a client.' },
  { name: 'exports', description: 'Background exports of a record list to CSV or JSON lines, and their downloads.' },
  { name: 'privacy', description: 'One person’s data exported or erased by email, and the suppression list (admins; docs/privacy.md).' },
  { name: 'events', description: 'The change feed: every event of the last days, resumable by cursor.' },
  {
    name: 'custom fields',
    description:
      "The workspace's own typed fields of contacts, leads, accounts and opportunities (settings): records carry their values in `customFields`.",
  },
  { name: 'api-keys', description: 'Workspace API keys (settings).' },
  { name: 'users', description: 'The people of the workspace and their roles (settings), and accepting an invitation.' },
  { name: 'meta', description: 'Health probes and this document.' },
];

export interface OpenApiDocumentOptions {
  /** Absolute origin (PUBLIC_BASE_URL); the document says `/` (this server) when unset. */
  serverUrl?: string;
  paths: OpenApiPaths[];
}

export function buildOpenApiDocument(options: OpenApiDocumentOptions): Record<string, unknown> {
  const paths: OpenApiPaths = {};
  for (const group of options.paths) {
    for (const [path, operations] of Object.entries(group)) paths[path] = { ...paths[path], ...operations };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'CRM API',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: options.serverUrl ?? '/', description: 'This server. Paths may also be prefixed /api/v1.' }],
    security: [{ bearerAuth: [] }],
    tags: TAGS,
    paths: withHeads(withScopes(withRoles(withIdempotencyKeys(paths)))),
    components: {
      ...COMPONENTS,
      parameters: IDEMPOTENCY_COMPONENTS.parameters,
      headers: { ...COMPONENTS.headers, ...IDEMPOTENCY_COMPONENTS.headers },
      responses: { ...COMPONENTS.responses, ...IDEMPOTENCY_COMPONENTS.responses },
    },
  };
}
