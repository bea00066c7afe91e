import { loadConfigOrExit, roleOrExit, redactConfig, grpcPort, TOPOLOGY } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { startProcessMetrics } from '@crm/telemetry';
import { automationConfigSchema, startAutomationService, startAutomationWorker } from './index';

const HELP = [
  'Usage: node services/automation/dist/main.js [--role=server|worker]',
  '  server (default): the automation gRPC service (rules, logs, templates, emails, notifications, webhooks).',
  '  worker: consumes records events, step messages and webhook deliveries, sweeps overdue steps, serves gRPC health.',
  `  Environment: GRPC_HOST, GRPC_PORT (${grpcPort('automation')}), MONGO_URL, MONGO_DATABASE (${TOPOLOGY.automation.database}), CRM_DATA_DIR (./data),`,
  '  AMQP_URL, RECORDS_GRPC_ADDR, AUTH_GRPC_ADDR, CRM_WAIT_TIME_SCALE (1), SWEEP_INTERVAL_MS (5000),',
  '  SWEEP_GRACE_MS (2000), SMTP_URL, EMAIL_FROM, AI_PROVIDER_URL, AI_MODEL, AI_API_KEY, LOG_LEVEL (info),',
  '  WEBHOOK_ALLOW_PRIVATE_TARGETS (false), WEBHOOK_TIMEOUT_MS (10000), WEBHOOK_RESPONSE_MAX_BYTES (1024),',
  '  WEBHOOK_RETRY_FIRST_MS (10000), WEBHOOK_RETRY_MAX_MS (3600000), WEBHOOK_RETRY_HORIZON_MS (86400000),',
  '  INTERNAL_TLS_DIR (its internal certificate: ca.crt, tls.crt, tls.key; INTERNAL_TLS=off runs plaintext), GRPC_HEALTH_PORT.',
  '',
].join('\n');

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(HELP);
    return;
  }
  const role = roleOrExit(['server', 'worker']);
  const config = loadConfigOrExit(automationConfigSchema);
  const logger = createLogger(role === 'worker' ? 'automation-worker' : 'automation', { level: config.LOG_LEVEL });
  const running = role === 'worker' ? await startAutomationWorker(config, { logger }) : await startAutomationService(config, { logger });
  const metrics = await startProcessMetrics();
  logger.info(
    { role, port: running.port, metricsPort: metrics?.port, config: redactConfig(config) },
    role === 'worker' ? 'automation worker started' : 'automation service listening (gRPC)',
  );
  stopOnSignals(logger, async () => {
    await running.stop();
    await metrics?.close();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`automation service failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
