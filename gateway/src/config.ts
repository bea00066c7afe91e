import { isIP } from 'node:net';
import { env, internalTlsSettings, requireInternalTlsDir, z, localGrpcAddress, TOPOLOGY } from '@crm/config';

/** One address or CIDR range: `10.0.0.0/8`, `192.168.1.7`, `fd00::/8`. */
function isAddressRange(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/** Comma-separated address ranges; empty: none. */
const addressRanges = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry.length > 0),
  )
  .refine((entries) => entries.every(isAddressRange), { message: 'must be comma-separated IP addresses or CIDR ranges (10.0.0.0/8)' });

/** Sizes as body-parser reads them: a number of bytes or a string such as `1mb`, `512kb`. */
const byteSize = z
  .string()
  .regex(/^\d+(b|kb|mb)?$/i, { message: 'must be a size such as 1mb, 512kb or 1048576' })
  .default('1mb');

export const gatewayConfigSchema = z
  .object({
    CRM_HOST: z.string().default('0.0.0.0'),
    CRM_PORT: env.port(TOPOLOGY.gateway.ports.api),
    CRM_DATA_DIR: z.string().default('./data'),
    TLS_CERT_FILE: z.string().optional(),
    TLS_KEY_FILE: z.string().optional(),
    /** Serve plain HTTP behind an ingress that terminates TLS; requests not marked https are refused. */
    TLS_TERMINATED_UPSTREAM: env.bool(false),
    /**
     * The proxies (an ingress's address range) whose X-Forwarded-For names the client, for rate
     * limits and logs. Empty (the default): the socket's peer is the client, whatever it sends.
     */
    TRUSTED_PROXIES: addressRanges,
    AUTH_GRPC_ADDR: env.grpcAddress(localGrpcAddress('auth')),
    RECORDS_GRPC_ADDR: env.grpcAddress(localGrpcAddress('records')),
    IMPORT_GRPC_ADDR: env.grpcAddress(localGrpcAddress('import')),
    AUTOMATION_GRPC_ADDR: env.grpcAddress(localGrpcAddress('automation')),
    REDIS_URL: env.url(['redis', 'rediss']),
    SIGNUP_ENABLED: env.bool(true),
    /** Where CSV uploads are streamed (the import service's upload endpoint), and the secret sent with them. */
    IMPORT_UPLOAD_URL: z
      .union([z.url({ protocol: /^https?$/ }), z.string().regex(/^unix:\/\S+$/)], {
        error: 'must be an http(s) URL or unix:/path/to/socket',
      })
      .default(`https://127.0.0.1:${TOPOLOGY.import.ports.upload}`),
    IMPORT_UPLOAD_SECRET: z.string().min(16).optional(),
    /** Prefix of rate-limit keys and the invalidation channel in Redis (lets several deployments share one Redis). */
    RATE_LIMIT_KEY_PREFIX: z
      .string()
      .regex(/^[\w:.-]*$/)
      .default('crm:'),
    /** How often API-key usage counts go to auth (one write per key per flush, none per request). */
    API_KEY_USAGE_FLUSH_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    BODY_LIMIT: byteSize,
    /**
     * Synchronous imports (POST /api/contacts/import/) one gateway holds at once: each buffers a file
     * of up to 5 MB while the import service reads it; more are answered 503 with Retry-After. The
     * second is the share of one workspace, so one tenant's burst leaves room for the others.
     */
    IMPORT_NOW_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(1000).default(16),
    IMPORT_NOW_MAX_IN_FLIGHT_PER_WORKSPACE: z.coerce.number().int().min(1).max(1000).default(4),
    /** At SIGTERM, how long the gateway keeps serving with /readyz failing before it stops taking connections. */
    DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(15_000).default(5_000),
    PUBLIC_BASE_URL: env.url(['https', 'http']),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ...internalTlsSettings,
  })
  .superRefine(requireInternalTlsDir)
  .superRefine((config, ctx) => {
    if (config.INTERNAL_TLS === 'on' && config.IMPORT_UPLOAD_URL.startsWith('http:')) {
      ctx.addIssue({
        code: 'custom',
        path: ['IMPORT_UPLOAD_URL'],
        message: "must be https:// (or unix:/path) with internal TLS: the upload endpoint takes only the gateway's certificate",
      });
    }
  });

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** A config with every default applied, for unit tests: plaintext gRPC to their fake services unless overridden. */
export function gatewayConfig(overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...gatewayConfigSchema.parse({ INTERNAL_TLS: 'off' }), ...overrides };
}
