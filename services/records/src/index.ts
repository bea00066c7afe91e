import { GrpcServer } from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import type { RecordsConfig } from './config';
import { recordsHandlers } from './grpc/records-handlers';

export * from './config';

export interface RunningRecordsService {
  port: number;
  stop(): Promise<void>;
}

export async function startRecordsService(config: RecordsConfig, options: { logger?: Logger } = {}): Promise<RunningRecordsService> {
  const logger = options.logger ?? createLogger('records', { level: config.LOG_LEVEL });
  const server = new GrpcServer({ logger }).addService('records/v1/records.proto', 'records.v1.RecordsService', recordsHandlers());
  const port = await server.listen(`${config.GRPC_HOST}:${config.GRPC_PORT}`);
  server.setServing(true);
  return { port, stop: () => server.shutdown() };
}
