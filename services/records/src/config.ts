import { env, z } from '@crm/config';

export const recordsConfigSchema = z.object({
  GRPC_HOST: z.string().default('0.0.0.0'),
  GRPC_PORT: env.port(50052),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type RecordsConfig = z.infer<typeof recordsConfigSchema>;
