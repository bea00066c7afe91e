import type { RequestHandler } from 'express';
import { withIncomingTraceContext } from '@crm/telemetry';

/**
 * Where a request's trace begins: the client's W3C `traceparent` when it sent one, a new trace id
 * otherwise. Everything after it (log lines, gRPC calls, the events they cause) carries that id.
 * A no-op when spans are exported (the HTTP instrumentation has started the trace) or tracing is off.
 */
export function traceContext(): RequestHandler {
  return (req, _res, next) => withIncomingTraceContext(req.headers, undefined, next, true);
}
