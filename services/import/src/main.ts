import { loadConfigOrExit, roleOrExit, redactConfig, grpcPort, TOPOLOGY } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { startProcessMetrics } from '@crm/telemetry';
import { importConfigSchema, startImportService, startImportWorker } from './index';

const HELP = `Usage: node services/import/dist/main.js [--role=server|worker]

  --role=server  (default) gRPC job reads on GRPC_PORT (${grpcPort('import')}), the upload HTTP endpoint on
                 UPLOAD_HOST:UPLOAD_PORT (127.0.0.1:${TOPOLOGY.import.ports.upload}) that the gateway streams uploads to, and
                 the sweeper that re-publishes stalled work. Without AMQP_URL it also runs the worker.
  --role=worker  Splits uploaded files and imports their chunks from RabbitMQ; serves gRPC health
                 on GRPC_PORT for the probes.

Environment: GRPC_HOST, GRPC_PORT, UPLOAD_HOST, UPLOAD_PORT, UPLOAD_SECRET, MONGO_URL,
MONGO_DATABASE, CRM_DATA_DIR, AMQP_URL, CRM_BUS_EXCHANGE, CRM_QUEUE_PREFIX, RECORDS_GRPC_ADDR,
CHUNK_ROWS, WORKER_PREFETCH, IMPORT_STALL_MS, IMPORT_SWEEP_MS, READERS_AT_ONCE, READERS_WAITING,
READERS_PER_WORKSPACE, READER_HEAP_MB, READER_TIMEOUT_MS, PDF_INFLATED_MAX_MB, LOG_LEVEL (see services/import/README.md),
INTERNAL_TLS_DIR (its internal certificate: ca.crt, tls.crt, tls.key; INTERNAL_TLS=off runs plaintext), GRPC_HEALTH_PORT.
`;

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(HELP);
    return;
  }
  const role = roleOrExit(['server', 'worker']);
  const config = loadConfigOrExit(importConfigSchema);
  const logger = createLogger(role === 'worker' ? 'import-worker' : 'import', { level: config.LOG_LEVEL });
  const service = role === 'worker' ? await startImportWorker(config, { logger }) : await startImportService(config, { logger });
  const metrics = await startProcessMetrics();
  logger.info(
    { role, port: service.port, uploadPort: service.uploadPort, metricsPort: metrics?.port, config: redactConfig(config) },
    `import ${role} started`,
  );
  stopOnSignals(logger, async () => {
    await service.stop();
    await metrics?.close();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`import service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
