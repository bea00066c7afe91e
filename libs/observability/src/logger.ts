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
];

export interface LoggerOptions {
  level?: string;
  /** Extra fields on every line, e.g. the worker role. */
  base?: Record<string, unknown>;
}

/** A JSON logger with the service name on every line and secrets redacted. */
export function createLogger(service: string, options: LoggerOptions = {}): Logger {
  return pino({
    name: service,
    level: options.level ?? process.env.LOG_LEVEL ?? 'info',
    base: { service, ...options.base },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
