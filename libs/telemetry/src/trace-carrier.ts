/**
 * Carries trace ids across the project's own choke points (the gateway's entry, the gRPC client and
 * server, bus publish and consume) through @opentelemetry/api alone, for when spans are not
 * exported: no SDK, no instrumentation, no span objects, just a span context in the active context.
 * When spans are exported the SDK's instrumentations carry the context themselves, and these are no-ops.
 */
import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  trace,
  TraceFlags,
  type SpanContext,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';

let carrying = false;

/** Set by startTelemetry: true when this module, rather than the instrumentations, carries the context. */
export function setTraceCarrying(on: boolean): void {
  carrying = on;
}

export function isTraceCarrying(): boolean {
  return carrying;
}

function randomHex(length: number): string {
  let out = '';
  // Math.random, as the SDK's own RandomIdGenerator: ids for correlation, not secrets.
  for (let i = 0; i < length; i += 8) out += ((Math.random() * 0x1_0000_0000) >>> 0).toString(16).padStart(8, '0');
  return out.slice(0, length);
}

/** A span context of this process: the caller's trace id (or a new one) and a span id of its own. Nothing is sampled. */
function localSpanContext(traceId: string = randomHex(32)): SpanContext {
  return { traceId, spanId: randomHex(16), traceFlags: TraceFlags.NONE, isRemote: false };
}

/** Writes the active trace context into an outgoing carrier (gRPC metadata; by default a plain headers object). */
export function injectTraceContext<C>(carrier: C, setter: TextMapSetter<C> = defaultTextMapSetter): void {
  if (carrying) propagation.inject(context.active(), carrier, setter);
}

/**
 * Runs `fn` in the trace of an incoming carrier, as a span of this process. A carrier without a
 * valid trace context continues the active one, or, with `startTrace` (the gateway's entry),
 * starts a new trace, so every request has an id.
 */
export function withIncomingTraceContext<C, T>(
  carrier: C,
  getter: TextMapGetter<C> = defaultTextMapGetter,
  fn: () => T,
  startTrace = false,
): T {
  if (!carrying) return fn();
  const remote = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier, getter));
  if (!remote && !startTrace) return fn();
  return context.with(trace.setSpanContext(ROOT_CONTEXT, localSpanContext(remote?.traceId)), fn);
}

/** A request's trace as plain values, for a process that carries it by hand rather than in the active context. */
export interface RequestTrace {
  traceId: string;
  spanId: string;
  /** The W3C header value that continues this trace in a call to another process. */
  traceparent: string;
}

/**
 * The trace of an incoming request (the caller's trace id, or a new one) as plain values, without
 * entering it as the active context: the gateway carries it by hand in its caller contexts and log
 * lines, because on Node 20 the async context every request would otherwise run in costs about a
 * tenth of the gateway's throughput. Undefined when spans are exported (the instrumentations carry
 * the context) or tracing is off.
 */
export function startRequestTrace(headers: Record<string, string | string[] | undefined>): RequestTrace | undefined {
  return carriedTrace(headers, defaultTextMapGetter, true);
}

/**
 * As startRequestTrace, for any carrier (gRPC metadata): the caller's trace continued as a span of
 * this process; a carrier without a valid trace context gives a new trace with `startTrace`, else undefined.
 */
export function carriedTrace<C>(carrier: C, getter: TextMapGetter<C>, startTrace: boolean): RequestTrace | undefined {
  if (!carrying) return undefined;
  const remote = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, carrier, getter));
  if (!remote && !startTrace) return undefined;
  const span = localSpanContext(remote?.traceId);
  return { traceId: span.traceId, spanId: span.spanId, traceparent: `00-${span.traceId}-${span.spanId}-00` };
}

/** A hand-carried trace's fields for a log line, named as the logger names them for a trace in context. */
export function traceLogFields(carried: RequestTrace | undefined): { trace_id?: string; span_id?: string } {
  return carried ? { trace_id: carried.traceId, span_id: carried.spanId } : {};
}

/** The active trace id, or undefined outside any trace. */
export function activeTraceId(): string | undefined {
  return trace.getSpanContext(context.active())?.traceId;
}

/** `fn` bound to the active trace context, for a callback an emitter calls later (a response's 'finish'). */
export function bindToActiveContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return carrying ? context.bind(context.active(), fn) : fn;
}
