/**
 * Request bodies: JSON only, within BODY_LIMIT, an object at the top, and no keys that could
 * reach an object's prototype if some later code merged the body into another object.
 */
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { DomainError } from '@crm/observability';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 32;

function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

function findForbiddenKey(value: unknown, depth = 0): string | undefined {
  if (depth > MAX_DEPTH) return '(nesting too deep)';
  if (value === null || typeof value !== 'object') return undefined;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return key;
    const found = findForbiddenKey((value as Record<string, unknown>)[key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** body-parser's failures, read as the spec's 400 and 413 bodies. */
const bodyParserErrors: ErrorRequestHandler = (error: { type?: string; limit?: number }, _req, _res, next) => {
  switch (error.type) {
    case 'entity.too.large':
      return next(new DomainError('payload_too_large', 'Request body is too large.'));
    case 'entity.parse.failed':
      return next(DomainError.invalid('Malformed JSON in the request body.'));
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return next(DomainError.invalid('Unsupported request body encoding; send UTF-8 JSON.'));
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return next(DomainError.invalid('The request body could not be read.'));
    default:
      return next(error);
  }
};

const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is('application/json')) {
    return next(DomainError.invalid('Unsupported content type; request bodies must be application/json.'));
  }
  next();
};

const requireSafeObject: RequestHandler = (req, _res, next) => {
  if (req.body === undefined) {
    req.body = {};
    return next();
  }
  if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
    return next(DomainError.invalid('The request body must be a JSON object.'));
  }
  const forbidden = findForbiddenKey(req.body);
  if (forbidden) return next(DomainError.invalid(`The request body may not contain the key "${forbidden}".`));
  next();
};

/**
 * One handler doing all of the above, in order. A request that announces no body at all (no
 * Content-Length, no Transfer-Encoding: most GETs) gets the empty object requireSafeObject would
 * give it, without passing the parser's four layers.
 */
export function jsonBody(limit: string): RequestHandler {
  const parse = Router().use(
    requireJsonContentType,
    // Not strict: well-formed JSON that is not an object (null, 42, "str") reaches requireSafeObject,
    // which says so, instead of being called malformed.
    express.json({ limit, type: 'application/json', strict: false }),
    bodyParserErrors,
    requireSafeObject,
  );
  return (req, res, next) => {
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) return parse(req, res, next);
    req.body = {};
    next();
  };
}
