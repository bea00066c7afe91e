import { loadConfigOrExit, redactConfig, grpcPort, localGrpcAddress, TOPOLOGY } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { startProcessMetrics } from '@crm/telemetry';
import { recordsConfigSchema, startRecordsService } from './index';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(
      [
        'Usage: node services/records/dist/main.js [--role=server]',
        '  Starts the records gRPC service (contacts, leads, accounts, opportunities, tasks, activities)',
        '  and its outbox relay. Configuration comes from the environment:',
        `  GRPC_HOST, GRPC_PORT (${grpcPort('records')}), MONGO_URL, MONGO_DATABASE (${TOPOLOGY.records.database}), CRM_DATA_DIR (./data), SQLITE_READ_WORKERS (2),`,
        `  AMQP_URL (in-process bus when unset), AUTH_GRPC_ADDR (${localGrpcAddress('auth')}), METRICS_PORT (9464), LOG_LEVEL (info),`,
        '  INTERNAL_TLS_DIR (its internal certificate: ca.crt, tls.crt, tls.key; INTERNAL_TLS=off runs plaintext), GRPC_HEALTH_PORT.',
        '  See docs/development.md.',
        '',
      ].join('\n'),
    );
    return;
  }
  const config = loadConfigOrExit(recordsConfigSchema);
  const logger = createLogger('records', { level: config.LOG_LEVEL });
  const service = await startRecordsService(config, { logger });
  const metrics = await startProcessMetrics();
  logger.info({ port: service.port, metricsPort: metrics?.port, config: redactConfig(config) }, 'records service listening (gRPC)');
  stopOnSignals(logger, async () => {
    await service.stop();
    await metrics?.close();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`records service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
