/**
 * The one place an error becomes an HTTP response: one table from the domain error kind (which
 * libs/grpc derived from the gRPC status) to the spec's status and body. Anything that is not a
 * DomainError is a 500 with a generic body; the real error is logged with the request id.
 */
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import { DomainError, isDomainError, type ErrorKind, type Logger } from '@crm/observability';
import { bearerErrorOf } from '../auth/credential-error';
import { traceFields } from '../request-context';
import type { RateLimiter } from './rate-limit';

export interface HttpError {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

const UNAVAILABLE_DETAIL = 'The service is temporarily unavailable; try again shortly.';
const INTERNAL_DETAIL = 'Internal server error.';

/** The table. Exhaustive over ErrorKind, so a new kind cannot go unmapped. */
function statusFor(kind: ErrorKind): number {
  switch (kind) {
    case 'invalid_argument':
      return 400;
    case 'unauthenticated':
      return 401;
    case 'permission_denied':
      return 403;
    case 'not_found':
      return 404;
    case 'conflict':
      return 409;
    case 'precondition_failed':
      return 412;
    case 'payload_too_large':
      return 413;
    case 'validation_failed':
      return 422;
    case 'rate_limited':
      return 429;
    case 'unavailable':
      return 503;
    case 'internal':
      return 500;
    default: {
      const unreachable: never = kind;
      throw new Error(`Unmapped error kind ${String(unreachable)}`);
    }
  }
}

export function httpErrorFor(error: DomainError): HttpError {
  const status = statusFor(error.kind);
  const headers: Record<string, string> = {};
  switch (error.kind) {
    case 'not_found':
      return { status, body: { detail: 'Not found.' }, headers };
    case 'invalid_argument':
      // A refused parameter the service names (the filter language's `filter` or `ordering`).
      return { status, body: error.fields && Object.keys(error.fields).length > 0 ? error.fields : { detail: error.message }, headers };
    case 'validation_failed':
      return {
        status,
        body: error.fields && Object.keys(error.fields).length > 0 ? error.fields : { nonFieldErrors: [error.message] },
        headers,
      };
    case 'unauthenticated': {
      const code = bearerErrorOf(error);
      headers['WWW-Authenticate'] = code ? `Bearer realm="crm", error="${code}"` : 'Bearer realm="crm"';
      return { status, body: { detail: error.message }, headers };
    }
    case 'unavailable':
      headers['Retry-After'] = '5';
      return { status, body: { detail: UNAVAILABLE_DETAIL }, headers };
    case 'internal':
      return { status, body: { detail: INTERNAL_DETAIL }, headers };
    default:
      return { status, body: { detail: error.message }, headers };
  }
}

/** Errors raised by Express itself or by libraries (e.g. a path that isn't valid percent-encoding). */
function asDomainError(error: unknown): DomainError {
  if (isDomainError(error)) return error;
  const status =
    (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  if (status === 413) return new DomainError('payload_too_large', 'Request body is too large.');
  if (typeof status === 'number' && status >= 400 && status < 500) return DomainError.invalid('Bad request.');
  return new DomainError('internal', 'Unexpected error.');
}

export function errorHandler(logger: Logger, limiter: RateLimiter): ErrorRequestHandler {
  return async (error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    const domainError = asDomainError(error);
    const { status, body, headers } = httpErrorFor(domainError);
    const requestId = res.locals.requestId;
    if (status >= 500) {
      logger.error({ ...traceFields(res), err: error, requestId, method: req.method, path: req.path, status }, 'request failed');
    }
    await limiter.ensureHeaders(req, res);
    if (res.headersSent) return;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(body);
  };
}
