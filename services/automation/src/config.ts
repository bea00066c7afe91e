import { env, z } from '@crm/config';

export const automationConfigSchema = z.object({
  GRPC_HOST: z.string().default('0.0.0.0'),
  GRPC_PORT: env.port(50054),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type AutomationConfig = z.infer<typeof automationConfigSchema>;
