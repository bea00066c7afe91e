import { loadConfigOrExit, redactConfig } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { recordsConfigSchema, startRecordsService } from './index';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write('Usage: node services/records/dist/main.js [--role=server]\n  Starts the records gRPC service. Configuration comes from the environment; see docs/development.md.\n');
    return;
  }
  const config = loadConfigOrExit(recordsConfigSchema);
  const logger = createLogger('records', { level: config.LOG_LEVEL });
  const service = await startRecordsService(config, { logger });
  logger.info({ port: service.port, config: redactConfig(config) }, 'records service listening (gRPC)');
  stopOnSignals(logger, () => service.stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`records service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
