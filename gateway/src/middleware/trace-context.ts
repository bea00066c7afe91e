import type { RequestHandler } from 'express';
import { startRequestTrace } from '@crm/telemetry';

/**
 * Where a request's trace begins: the client's W3C `traceparent` when it sent one, a new trace id
 * otherwise. The gateway carries it by hand (res.locals.trace → caller contexts, the upload proxy's
 * headers, its log lines) instead of running the request in an async context, which on Node 20
 * costs every promise of every request. A no-op when spans are exported (the HTTP instrumentation
 * has started the trace) or tracing is off.
 */
export function traceContext(): RequestHandler {
  return (req, res, next) => {
    const trace = startRequestTrace(req.headers);
    if (trace) res.locals.trace = trace;
    next();
  };
}
