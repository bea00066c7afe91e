import { loadConfigOrExit, redactConfig } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { importConfigSchema, startImportService } from './index';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write('Usage: node services/import/dist/main.js [--role=server]\n  Starts the import gRPC service. Configuration comes from the environment; see docs/development.md.\n');
    return;
  }
  const config = loadConfigOrExit(importConfigSchema);
  const logger = createLogger('import', { level: config.LOG_LEVEL });
  const service = await startImportService(config, { logger });
  logger.info({ port: service.port, config: redactConfig(config) }, 'import service listening (gRPC)');
  stopOnSignals(logger, () => service.stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`import service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
