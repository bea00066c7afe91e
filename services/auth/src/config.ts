import { createPrivateKey } from 'node:crypto';
import {
  env,
  grpcHealthSettings,
  internalTlsSettings,
  requireInternalTlsDir,
  retentionSweepSettings,
  z,
  grpcPort,
  TOPOLOGY,
} from '@crm/config';

/** PEMs in environment variables often arrive with literal `\n`; accept both forms. */
function pem(value: string): string {
  return value.includes('\\n') ? value.replace(/\\n/g, '\n') : value;
}

export const authConfigSchema = z
  .object({
    GRPC_HOST: z.string().default('0.0.0.0'),
    GRPC_PORT: env.port(grpcPort('auth')),
    MONGO_URL: env.url(['mongodb', 'mongodb+srv']),
    MONGO_DATABASE: z.string().min(1).default(TOPOLOGY.auth.database),
    CRM_DATA_DIR: z.string().min(1).default('./data'),
    /** When absent, generated once and kept in `<CRM_DATA_DIR>/operator-token` (mode 0600). */
    AUTH_OPERATOR_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** An RSA private key (PEM). When absent, one is generated once and kept in the store. */
    AUTH_JWT_PRIVATE_KEY: z
      .string()
      .transform(pem)
      .refine(
        (value) => {
          try {
            return createPrivateKey(value).asymmetricKeyType === 'rsa';
          } catch {
            return false;
          }
        },
        { message: 'must be an RSA private key in PEM form' },
      )
      .optional(),
    ACCESS_TOKEN_TTL_SECONDS: env.positiveInt(3600),
    REFRESH_TOKEN_TTL_DAYS: env.positiveInt(30),
    /** Days a refresh token is kept after it expired (used, revoked or not), then deleted. */
    REFRESH_TOKEN_RETENTION_DAYS: env.days(30),
    ...retentionSweepSettings,
    /** Where plan changes are announced to the gateways (their invalidation channel); unset: not announced. */
    REDIS_URL: env.url(['redis', 'rediss']),
    RATE_LIMIT_KEY_PREFIX: z.string().min(1).default('crm:'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    ...internalTlsSettings,
    ...grpcHealthSettings,
  })
  .superRefine(requireInternalTlsDir);

export type AuthConfig = z.infer<typeof authConfigSchema>;
