import { loadConfigOrExit, redactConfig } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { startProcessMetrics } from '@crm/telemetry';
import { gatewayConfigSchema } from './config';
import { startGateway } from './index';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(
      'Usage: node gateway/dist/main.js\n  Starts the HTTPS gateway. Configuration comes from the environment; see docs/development.md.\n',
    );
    return;
  }
  const config = loadConfigOrExit(gatewayConfigSchema);
  const logger = createLogger('gateway', { level: config.LOG_LEVEL });
  const gateway = await startGateway(config, { logger, drainDelayMs: config.DRAIN_DELAY_MS });
  const metrics = await startProcessMetrics();
  logger.info({ url: gateway.url, metricsPort: metrics?.port, config: redactConfig(config) }, `gateway listening on ${gateway.url}`);
  stopOnSignals(logger, async () => {
    await gateway.stop();
    await metrics?.close();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
