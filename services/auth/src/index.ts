import { authV1, GrpcServer, healthListenAddress, internalTlsFor, listenAddress, storeReadiness } from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import { openInvalidationChannel, type InvalidationChannel } from '@crm/rate-limit';
import { locationFromEnv, openStoreWhenReachable, RetentionSweeper, type StoreLocation } from '@crm/store';
import { systemClock } from '@crm/vocabulary';
import type { AuthConfig } from './config';
import { createAuthServices } from './application/auth-services';
import type { PasswordHashingOptions } from './domain/passwords';
import { SigningKeyRing } from './domain/signing-keys';
import { publishWorkspaceChanges } from './messaging/workspace-changes-publisher';
import { authCallers, operatorCallers } from './grpc/auth-callers';
import { authHandlers } from './grpc/auth-handlers';
import { operatorHandlers } from './grpc/operator-handlers';
import { ensureOperatorToken } from './adapters/operator-token';
import { authCollections } from './store/collections';
import { createRepositories } from './store/repositories';
import { authRetentionRules } from './store/retention-rules';

export { authConfigSchema, type AuthConfig } from './config';
export { authAddressPath } from './adapters/auth-address';

export const AUTH_PROTO = 'auth/v1/auth.proto';

export interface StartAuthOptions {
  logger?: Logger;
  /** Overrides where the store lives (tests use an in-memory SQLite store). */
  storeLocation?: StoreLocation;
  /** Lower argon2 costs, for tests only. */
  passwordHashing?: PasswordHashingOptions;
  /**
   * The gateways' invalidation channel, where plan changes are announced. One-process mode hands
   * in the gateway's own; otherwise it is Redis when REDIS_URL is set, and none without it.
   */
  invalidation?: InvalidationChannel;
}

export interface RunningAuthService {
  port: number;
  operatorToken: string;
  stop(): Promise<void>;
}

/** Opens the store, makes sure the signing key and operator token exist, and serves both gRPC services. */
export async function startAuthService(config: AuthConfig, options: StartAuthOptions = {}): Promise<RunningAuthService> {
  const logger = options.logger ?? createLogger('auth', { level: config.LOG_LEVEL });
  const tls = internalTlsFor(config, 'auth', logger);
  const operatorToken = await ensureOperatorToken(config.AUTH_OPERATOR_TOKEN, config.CRM_DATA_DIR);
  const location =
    options.storeLocation ??
    locationFromEnv({ service: 'auth', mongoUrl: config.MONGO_URL, mongoDatabase: config.MONGO_DATABASE, dataDir: config.CRM_DATA_DIR });
  // Auth's handlers neither log nor publish in the caller's trace: it rides in their CallContext.
  const server = new GrpcServer({ logger, tls, maxConnectionAgeMs: config.GRPC_MAX_CONNECTION_AGE_MS, traceContext: 'carried' });
  // The ports open first, NOT_SERVING, so a replica whose MongoDB does not answer yet waits, saying so.
  const port = await server.listen(listenAddress(config.GRPC_HOST, config.GRPC_PORT), { healthAddress: healthListenAddress(config) });
  const store = await openStoreWhenReachable({ location, collections: authCollections }, logger).catch(async (error: unknown) => {
    await server.shutdown(0);
    throw error;
  });
  const ownedChannel =
    !options.invalidation && config.REDIS_URL
      ? await openInvalidationChannel({ kind: 'redis', url: config.REDIS_URL, keyPrefix: config.RATE_LIMIT_KEY_PREFIX }, logger)
      : undefined;
  const channel = options.invalidation ?? ownedChannel;
  try {
    const repositories = createRepositories(store);
    const clock = systemClock;
    const signingKeys = await SigningKeyRing.open(repositories.signingKeys, config.AUTH_JWT_PRIVATE_KEY, clock);
    const services = createAuthServices({
      repositories,
      signingKeys,
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlDays: config.REFRESH_TOKEN_TTL_DAYS,
      passwordHashing: options.passwordHashing,
      workspaceChanges: channel ? publishWorkspaceChanges(channel, logger) : undefined,
      now: clock,
    });
    server
      .addService(AUTH_PROTO, authV1.AuthServiceName, authHandlers(services), authCallers)
      .addService(AUTH_PROTO, authV1.AuthOperatorServiceName, operatorHandlers(services, operatorToken), operatorCallers);
    await server.serveWhileReady([storeReadiness(store)]);
    const retention = new RetentionSweeper(store, authRetentionRules(config.REFRESH_TOKEN_RETENTION_DAYS), logger, {
      intervalMs: config.RETENTION_SWEEP_MS,
      batchSize: config.RETENTION_BATCH_SIZE,
    });
    retention.start();
    return {
      port,
      operatorToken,
      async stop() {
        await retention.stop();
        await server.shutdown();
        await ownedChannel?.close();
        await store.close();
      },
    };
  } catch (error) {
    await server.shutdown(0);
    await ownedChannel?.close();
    await store.close();
    throw error;
  }
}
