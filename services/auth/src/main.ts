// The auth service process: read the environment, serve, stop cleanly on SIGTERM/SIGINT.
import { loadConfigOrExit, redactConfig } from '@crm/config';
import { createLogger } from '@crm/observability';
import { authConfigSchema } from './config';
import { startAuthService } from './index';
import { operatorTokenPath } from './operator-token';

async function main(): Promise<void> {
  const config = loadConfigOrExit(authConfigSchema);
  const logger = createLogger('auth', { level: config.LOG_LEVEL });
  const service = await startAuthService(config, { logger });
  logger.info(
    {
      config: redactConfig(config),
      operatorToken: config.AUTH_OPERATOR_TOKEN ? 'from AUTH_OPERATOR_TOKEN' : operatorTokenPath(config.CRM_DATA_DIR),
    },
    `auth gRPC listening on ${config.GRPC_HOST}:${service.port}`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  createLogger('auth').fatal({ err: error }, 'auth service failed to start');
  process.exit(1);
});
