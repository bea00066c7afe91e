/**
 * The OpenAPI side of Idempotency-Key (idempotency/idempotent-posts.ts): every authenticated POST
 * takes the header, its answers may be replays, and it can answer 400, 409 and 422 because of it.
 */
import { MAX_KEY_LENGTH } from '../idempotency/idempotent-posts';
import { RATE_LIMIT_HEADERS, type OpenApiOperation, type OpenApiPaths } from './operation';

export const IDEMPOTENCY_COMPONENTS = {
  parameters: {
    'Idempotency-Key': {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: `Up to ${MAX_KEY_LENGTH} characters, per workspace. A retry with the same key, method, path and body within 24 hours gets the first answer again (its status and body, with \`Idempotent-Replayed: true\`) and changes nothing; the same key with another request answers 422; while the first request with the key still runs, 409. Answers of status 500 and above, and bodies over 1 MB, are not kept: a retry runs again. A successful answer that carries a one-time secret (a new API key, a webhook's signing secret, an invitation token) is not kept either, so that no credential is stored: a retry of it runs nothing and answers 409 with a detail saying the first request succeeded and its secret cannot be shown again. For the CSV import upload the key covers the method and path, not the file.`,
      schema: { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH },
    },
  },
  headers: {
    'Idempotent-Replayed': {
      description: '`true` when this is the kept answer of an earlier request with the same Idempotency-Key.',
      schema: { type: 'string', enum: ['true'] },
    },
  },
  responses: {
    ValidationFailedOrKeyReused: {
      description:
        'Body validation failed (every failing field listed), or the Idempotency-Key was already used for a different request (`{"detail"}`).',
      headers: RATE_LIMIT_HEADERS,
      content: {
        'application/json': {
          schema: { oneOf: [{ $ref: '#/components/schemas/ValidationError' }, { $ref: '#/components/schemas/Error' }] },
        },
      },
    },
  },
};

/** 422 responses an operation documents itself (with the key's `{detail}` among them), kept as they are. */
export const OWN_422_RESPONSES = new WeakSet<object>();

function documentKey(op: OpenApiOperation): OpenApiOperation {
  const responses = { ...(op.responses as Record<string, { $ref?: string; headers?: Record<string, unknown> }>) };
  for (const [status, response] of Object.entries(responses)) {
    if (!response.$ref && Number(status) < 300) {
      responses[status] = {
        ...response,
        headers: { ...response.headers, 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } },
      };
    }
  }
  responses['400'] ??= { $ref: '#/components/responses/BadRequest' };
  responses['409'] ??= { $ref: '#/components/responses/Conflict' };
  // An operation's own 422 marked so (a batch's results) stays; it lists the reused key's `{detail}` itself.
  if (!OWN_422_RESPONSES.has(responses['422'] ?? {})) responses['422'] = { $ref: '#/components/responses/ValidationFailedOrKeyReused' };
  const parameters = [...((op.parameters as unknown[]) ?? []), { $ref: '#/components/parameters/Idempotency-Key' }];
  const ordered = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return { ...op, parameters, responses: ordered };
}

/** The paths with every authenticated POST taking Idempotency-Key. */
export function withIdempotencyKeys(paths: OpenApiPaths): OpenApiPaths {
  const out: OpenApiPaths = {};
  for (const [path, operations] of Object.entries(paths)) {
    const post = operations.post;
    const authenticated = Array.isArray(post?.security) && post.security.length > 0;
    out[path] = authenticated ? { ...operations, post: documentKey(post!) } : operations;
  }
  return out;
}
