import { GrpcServer } from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import type { AutomationConfig } from './config';
import { automationHandlers } from './grpc/automation-handlers';

export * from './config';

export interface RunningAutomationService {
  port: number;
  stop(): Promise<void>;
}

export async function startAutomationService(config: AutomationConfig, options: { logger?: Logger } = {}): Promise<RunningAutomationService> {
  const logger = options.logger ?? createLogger('automation', { level: config.LOG_LEVEL });
  const server = new GrpcServer({ logger }).addService('automation/v1/automation.proto', 'automation.v1.AutomationService', automationHandlers());
  const port = await server.listen(`${config.GRPC_HOST}:${config.GRPC_PORT}`);
  server.setServing(true);
  return { port, stop: () => server.shutdown() };
}
