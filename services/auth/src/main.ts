// The auth service process: read the environment, serve, stop cleanly on SIGTERM/SIGINT.
import { loadConfigOrExit, redactConfig, grpcPort, TOPOLOGY } from '@crm/config';
import { createLogger, stopOnSignals } from '@crm/observability';
import { startProcessMetrics } from '@crm/telemetry';
import { authConfigSchema } from './config';
import { startAuthService } from './index';
import { operatorTokenPath } from './adapters/operator-token';

async function main(): Promise<void> {
  if (process.argv.includes('--help')) {
    process.stdout.write(
      [
        'Usage: node services/auth/dist/main.js',
        '  Starts the auth gRPC service (workspaces, users, tokens, API keys, plans). Configuration comes',
        `  from the environment: GRPC_HOST, GRPC_PORT (${grpcPort('auth')}), MONGO_URL, MONGO_DATABASE (${TOPOLOGY.auth.database}),`,
        '  CRM_DATA_DIR (./data), AUTH_OPERATOR_TOKEN, AUTH_JWT_PRIVATE_KEY, METRICS_PORT (9464), LOG_LEVEL,',
        '  INTERNAL_TLS_DIR (its internal certificate: ca.crt, tls.crt, tls.key; INTERNAL_TLS=off runs plaintext), GRPC_HEALTH_PORT.',
        '  The operator CLI is node services/auth/dist/cli.js --help.',
        '',
      ].join('\n'),
    );
    return;
  }
  const config = loadConfigOrExit(authConfigSchema);
  const logger = createLogger('auth', { level: config.LOG_LEVEL });
  const service = await startAuthService(config, { logger });
  const metrics = await startProcessMetrics();
  logger.info(
    {
      config: redactConfig(config),
      metricsPort: metrics?.port,
      operatorToken: config.AUTH_OPERATOR_TOKEN ? 'from AUTH_OPERATOR_TOKEN' : operatorTokenPath(config.CRM_DATA_DIR),
    },
    `auth gRPC listening on ${config.GRPC_HOST}:${service.port}`,
  );
  stopOnSignals(logger, async () => {
    await service.stop();
    await metrics?.close();
  });
}

main().catch((error: unknown) => {
  createLogger('auth').fatal({ err: error }, 'auth service failed to start');
  process.exit(1);
});
