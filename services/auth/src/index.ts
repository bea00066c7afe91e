import { authV1, GrpcServer, listenAddress } from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import { locationFromEnv, openStore, type StoreLocation } from '@crm/store';
import type { AuthConfig } from './config';
import { loadSigningKey } from './domain/access-tokens';
import { createAuthServices } from './domain/auth-services';
import type { PasswordHashingOptions } from './domain/passwords';
import { authHandlers } from './grpc/auth-handlers';
import { operatorHandlers } from './grpc/operator-handlers';
import { ensureOperatorToken } from './operator-token';
import { authCollections } from './store/collections';
import { createRepositories } from './store/repositories';

export { authConfigSchema, type AuthConfig } from './config';

export const AUTH_PROTO = 'auth/v1/auth.proto';

export interface StartAuthOptions {
  logger?: Logger;
  /** Overrides where the store lives (tests use an in-memory SQLite store). */
  storeLocation?: StoreLocation;
  /** Lower argon2 costs, for tests only. */
  passwordHashing?: PasswordHashingOptions;
}

export interface RunningAuthService {
  port: number;
  operatorToken: string;
  stop(): Promise<void>;
}

/** Opens the store, makes sure the signing key and operator token exist, and serves both gRPC services. */
export async function startAuthService(config: AuthConfig, options: StartAuthOptions = {}): Promise<RunningAuthService> {
  const logger = options.logger ?? createLogger('auth', { level: config.LOG_LEVEL });
  const operatorToken = await ensureOperatorToken(config.AUTH_OPERATOR_TOKEN, config.CRM_DATA_DIR);
  const location =
    options.storeLocation ??
    locationFromEnv({ service: 'auth', mongoUrl: config.MONGO_URL, mongoDatabase: config.MONGO_DATABASE, dataDir: config.CRM_DATA_DIR });
  const store = await openStore({ location, collections: authCollections });
  let server: GrpcServer | undefined;
  try {
    const repositories = createRepositories(store);
    const signingKey = await loadSigningKey(repositories.signingKeys, config.AUTH_JWT_PRIVATE_KEY, new Date());
    const services = createAuthServices({
      repositories,
      signingKey,
      accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlDays: config.REFRESH_TOKEN_TTL_DAYS,
      passwordHashing: options.passwordHashing,
    });
    server = new GrpcServer({ logger })
      .addService(AUTH_PROTO, authV1.AuthServiceName, authHandlers(services))
      .addService(AUTH_PROTO, authV1.AuthOperatorServiceName, operatorHandlers(services, operatorToken));
    const port = await server.listen(listenAddress(config.GRPC_HOST, config.GRPC_PORT));
    server.setServing(true);
    const running = server;
    return {
      port,
      operatorToken,
      async stop() {
        await running.shutdown();
        await store.close();
      },
    };
  } catch (error) {
    if (server) await server.shutdown(0);
    await store.close();
    throw error;
  }
}
