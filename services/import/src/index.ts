import { GrpcServer } from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import type { ImportConfig } from './config';
import { importHandlers } from './grpc/import-handlers';

export * from './config';

export interface RunningImportService {
  port: number;
  stop(): Promise<void>;
}

export async function startImportService(config: ImportConfig, options: { logger?: Logger } = {}): Promise<RunningImportService> {
  const logger = options.logger ?? createLogger('import', { level: config.LOG_LEVEL });
  const server = new GrpcServer({ logger }).addService('import/v1/import.proto', 'import.v1.ImportService', importHandlers());
  const port = await server.listen(`${config.GRPC_HOST}:${config.GRPC_PORT}`);
  server.setServing(true);
  return { port, stop: () => server.shutdown() };
}
