import { z } from 'zod';

export { z };

/** Thrown when the environment does not satisfy a process's schema; lists every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/**
 * Validates the environment against a zod object whose keys are variable names.
 * Every problem is reported at once, so an operator fixes the deployment in one go.
 */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    input[key] = value === '' ? undefined : value;
  }
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return result.data;
}

/** Like loadConfig, but prints the problems and exits: for a process's entry point. */
export function loadConfigOrExit<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

const SECRET_NAME = /(SECRET|PASSWORD|PASSWD|PASS|PASSPHRASE|TOKEN|PRIVATE|KEY|APIKEY|CREDENTIALS?)$/i;
/**
 * A URL's user information: everything between `scheme://` and the last `@` before the host ends
 * (so a password holding a raw `@` is caught whole). `user:password` keeps the user name; a lone
 * value (`redis://:pw@`, `https://token@`) is all secret.
 */
const URL_USERINFO = /([a-z][a-z\d+.-]*:\/\/)([^/?#\s]*)@/gi;
/** A query parameter or `key=value` pair whose name says it is a credential. */
const SECRET_PARAM = /([?&;]|^)((?:[\w.-]*)(?:password|passwd|pass|pwd|secret|token|key|signature|sig|credentials?))=([^&;#\s]*)/gi;

/** A string fit for a log line: credentials in URLs (user information, secret query parameters) masked. */
export function redactCredentials(value: string): string {
  return value
    .replace(URL_USERINFO, (_match, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':');
      return colon > 0 ? `${scheme}${userinfo.slice(0, colon)}:[redacted]@` : `${scheme}[redacted]@`;
    })
    .replace(SECRET_PARAM, (_match, lead: string, name: string) => `${lead}${name}=[redacted]`);
}

/** A copy fit for a log line: secret-looking values hidden, credentials in URLs masked. */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value !== undefined && SECRET_NAME.test(key)) out[key] = '[redacted]';
    else if (typeof value === 'string') out[key] = redactCredentials(value);
    else out[key] = value;
  }
  return out;
}

/** Common field parsers, so every process reads ports, booleans and durations the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  bool: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  url: (protocols: string[]) =>
    z
      .string()
      .url()
      .refine((v) => protocols.some((p) => v.startsWith(`${p}:`)), { message: `must be a ${protocols.join(' or ')} URL` })
      .optional(),
  /**
   * Where a gRPC service is: `host:port` (one connection, e.g. a ClusterIP Service), `unix:/absolute/path`
   * for a Unix socket (one-process mode), or every replica, balanced call by call: `dns:///host:port`
   * (a headless Service) or `ipv4:a.b.c.d:port,...`.
   */
  grpcAddress: (fallback: string) =>
    z
      .string()
      .regex(
        /^(?:(?:dns:\/\/\/)?[^\s:/,]+:\d{1,5}|\[[0-9a-fA-F:.]+\]:\d{1,5}|unix:\/\S+|ipv4:\d{1,3}(?:\.\d{1,3}){3}:\d{1,5}(?:,\d{1,3}(?:\.\d{1,3}){3}:\d{1,5})*)$/,
        { message: 'must be host:port, dns:///host:port, ipv4:a.b.c.d:port[,...] or unix:/path/to/socket' },
      )
      .default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  /** A retention in whole days: at least a day, at most ten years. */
  days: (fallback: number) => z.coerce.number().int().min(1).max(3650).default(fallback),
  number: (fallback: number) => z.coerce.number().positive().default(fallback),
};

/**
 * How a service's retention sweeper runs (libs/store retention-sweeper.ts): every
 * RETENTION_SWEEP_MS one replica deletes at most RETENTION_BATCH_SIZE expired documents per kind.
 */
export const retentionSweepSettings = {
  RETENTION_SWEEP_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(500),
};
