import { loadConfigOrExit, redactConfig } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { automationConfigSchema, startAutomationService } from './index';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write('Usage: node services/automation/dist/main.js [--role=server]\n  Starts the automation gRPC service. Configuration comes from the environment; see docs/development.md.\n');
    return;
  }
  const config = loadConfigOrExit(automationConfigSchema);
  const logger = createLogger('automation', { level: config.LOG_LEVEL });
  const service = await startAutomationService(config, { logger });
  logger.info({ port: service.port, config: redactConfig(config) }, 'automation service listening (gRPC)');
  stopOnSignals(logger, () => service.stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`automation service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
