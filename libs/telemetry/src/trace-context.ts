import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';

/**
 * The active trace context as W3C headers (`traceparent`, `tracestate`), to store beside work that
 * is carried out later — an outbox event, a scheduled step — so the trace continues from the
 * request that caused it rather than from the relay that happens to send it. Empty when tracing is off.
 */
export function captureTraceContext(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** Runs `fn` inside the trace context that `headers` carry (from captureTraceContext). */
export function withTraceContext<T>(headers: Record<string, string> | undefined, fn: () => T): T {
  if (!headers || !headers.traceparent) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, headers), fn);
}
