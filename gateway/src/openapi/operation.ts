/**
 * Small builders for OpenAPI 3.1 operations, so each route file states its paths in a few lines
 * and every operation gets the same error responses and rate-limit headers.
 */
export type JsonSchema = Record<string, unknown>;
export type OpenApiOperation = Record<string, unknown>;
export type OpenApiPaths = Record<string, Partial<Record<'get' | 'head' | 'post' | 'put' | 'patch' | 'delete', OpenApiOperation>>>;

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 422 | 429 | 500 | 503;

const ERROR_RESPONSE: Record<ErrorStatus, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  412: 'PreconditionFailed',
  413: 'PayloadTooLarge',
  422: 'ValidationFailed',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
};

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

export const ref = (schema: string): JsonSchema => ({ $ref: `#/components/schemas/${schema}` });

export interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** false for login, refresh, signup and probes. */
  authenticated: boolean;
  requestBody?: JsonSchema;
  parameters?: Array<Record<string, unknown>>;
  /** Success responses: status → description and optional body schema (`mediaType`, default application/json). */
  responses: Record<number, { description: string; schema?: JsonSchema; mediaType?: string }>;
  /** false for the health probes, which are not counted and carry no X-RateLimit-* headers. */
  rateLimited?: boolean;
  /** Error statuses beyond the ones every operation can answer (500, 503; 429 when rate limited; 401 when authenticated). */
  errors?: ErrorStatus[];
  /** Who may call it (`x-roles`), when not the rule openapi/roles.ts states for every operation. */
  roles?: Array<'admin' | 'member' | 'apiKey'>;
}

export function operation(spec: OperationSpec): OpenApiOperation {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = {
      description: response.description,
      headers: spec.rateLimited === false ? { 'X-Request-Id': RATE_LIMIT_HEADERS['X-Request-Id'] } : RATE_LIMIT_HEADERS,
      ...(response.schema ? { content: { [response.mediaType ?? 'application/json']: { schema: response.schema } } } : {}),
    };
  }
  const errors = new Set<ErrorStatus>([...(spec.errors ?? []), 500, 503]);
  // The probes are not counted, so never throttled.
  if (spec.rateLimited !== false) errors.add(429);
  if (spec.authenticated) errors.add(401);
  // Every authenticated request passes the JSON body checks (a body that is not a JSON object is a
  // 400 whatever the method), and a bad query parameter is a 400 too.
  if (spec.authenticated || spec.parameters?.some((p) => p.in === 'query')) errors.add(400);
  if (spec.requestBody) {
    errors.add(400);
    errors.add(413);
    errors.add(422);
  }
  for (const status of [...errors].sort((a, b) => a - b))
    responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSE[status]}` };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    security: spec.authenticated ? [{ bearerAuth: [] }] : [],
    ...(spec.roles ? { 'x-roles': spec.roles } : {}),
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: spec.requestBody } } } } : {}),
    responses,
  };
}

export const idParameter = (description: string) => ({ name: 'id', in: 'path', required: true, description, schema: { type: 'string' } });

/**
 * HEAD beside every GET: Express answers HEAD with the GET's status and headers and no body, so the
 * document says so once here instead of in every route file.
 */
export function withHeads(paths: OpenApiPaths): OpenApiPaths {
  const out: OpenApiPaths = {};
  for (const [path, operations] of Object.entries(paths)) {
    const get = operations.get;
    if (!get) {
      out[path] = operations;
      continue;
    }
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(get.responses as Record<string, Record<string, unknown>>)) {
      if (typeof response.$ref === 'string') responses[status] = response;
      else responses[status] = { description: response.description, ...(response.headers ? { headers: response.headers } : {}) };
    }
    const { requestBody: _none, ...rest } = get;
    out[path] = {
      ...operations,
      head: { ...rest, operationId: `${String(get.operationId)}Head`, summary: `${String(get.summary)} (headers only)`, responses },
    };
  }
  return out;
}
