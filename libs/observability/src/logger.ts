import { context, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line, whatever object they appear in. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'refresh',
  '*.refresh',
  'access',
  '*.access',
  'key',
  '*.key',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'privateKeyPem',
  '*.privateKeyPem',
  // Webhook signing secrets (they are kept in the clear to sign, so they must never be logged).
  'secret',
  '*.secret',
  'secrets',
  '*.secrets',
];

export interface LoggerOptions {
  level?: string;
  /** Extra fields on every line, e.g. the worker role. */
  base?: Record<string, unknown>;
}

/**
 * The trace of the line's request (trace_id, span_id, trace_flags, the names OpenTelemetry's pino
 * instrumentation uses), when there is one; nothing otherwise, and nothing with OTEL_SDK_DISABLED.
 */
export function traceFields(): Record<string, string> {
  const span = trace.getSpanContext(context.active());
  if (!span) return {};
  return { trace_id: span.traceId, span_id: span.spanId, trace_flags: `0${span.traceFlags.toString(16)}` };
}

/** A JSON logger with the service name (and its request's trace id) on every line and secrets redacted. */
export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  return pino({
    name: service,
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { service, ...options.base },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: traceFields,
  });
}
