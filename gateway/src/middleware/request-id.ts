import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/**
 * A client may correlate with its own X-Request-Id, but only one that is plainly an identifier:
 * anything else (control characters, separators, very long values) is replaced, so the id is
 * safe to echo in a header, a log line or gRPC metadata.
 */
export const SAFE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const sent = req.get('x-request-id');
    const id = sent && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
