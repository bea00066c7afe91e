/**
 * Starts the gateway: TLS material, clients, the rate-limit counter and invalidation channel,
 * the app, and the HTTPS server (plain HTTP only behind a TLS-terminating ingress).
 */
import { createServer as createHttpServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { checkHealth, internalTlsFor } from '@crm/grpc';
import { createLogger, type Logger } from '@crm/observability';
import {
  openInvalidationChannel,
  openRateLimitCounter,
  type InvalidationChannel,
  type RateLimitCounter,
  type RateLimitLocation,
} from '@crm/rate-limit';
import { gauge } from '@crm/telemetry';
import { createApp, type AppDeps } from './app';
import { continueWhenBodyIsRead } from './expect-continue';
import { openAuthClient, type AuthClient } from './clients/auth-client';
import type { GatewayConfig } from './config';
import { loadTlsMaterial } from './tls-certificate';
import type { IdempotencyStore } from './idempotency/idempotency-store';
import { MemoryIdempotencyStore } from './idempotency/memory-idempotency-store';
import { RedisIdempotencyStore } from './idempotency/redis-idempotency-store';
import { sharedCheck } from './shared-check';

export * from './config';
export { createApp, type AppDeps, type GatewayApp } from './app';

/** How long one answer of auth's health check stands for /readyz (probes come every few seconds per replica). */
const READINESS_TTL_MS = 2000;

export interface GatewayOptions {
  logger?: Logger;
  auth?: AuthClient;
  rateLimitCounter?: RateLimitCounter;
  invalidation?: InvalidationChannel;
  idempotencyStore?: IdempotencyStore;
  checkReadiness?: () => Promise<boolean>;
  budgets?: AppDeps['budgets'];
  /** How long in-flight requests may take to finish at stop (default 10 s). */
  drainGraceMs?: number;
  /**
   * How long stop() keeps serving with readiness failing before it closes the listener (default 0):
   * long enough for load balancers to see /readyz fail and send new requests elsewhere.
   */
  drainDelayMs?: number;
}

export interface RunningGateway {
  url: string;
  port: number;
  stop(): Promise<void>;
}

function rateLimitLocation(config: GatewayConfig): RateLimitLocation {
  return config.REDIS_URL ? { kind: 'redis', url: config.REDIS_URL, keyPrefix: config.RATE_LIMIT_KEY_PREFIX } : { kind: 'memory' };
}

export async function startGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger('gateway', { level: config.LOG_LEVEL });
  const internalTls = internalTlsFor(config, 'gateway', logger);
  const ownedAuth = options.auth ? undefined : openAuthClient(config.AUTH_GRPC_ADDR, internalTls);
  const auth: AuthClient = options.auth ?? ownedAuth!;
  const counter = options.rateLimitCounter ?? (await openRateLimitCounter(rateLimitLocation(config), logger));
  const invalidation = options.invalidation ?? (await openInvalidationChannel(rateLimitLocation(config), logger));
  const idempotencyStore =
    options.idempotencyStore ??
    (config.REDIS_URL ? RedisIdempotencyStore.open(config.REDIS_URL, config.RATE_LIMIT_KEY_PREFIX) : new MemoryIdempotencyStore());
  observeCounting(counter);

  const gateway = createApp({
    config,
    logger,
    auth,
    internalTls,
    rateLimitCounter: counter,
    invalidation,
    idempotencyStore,
    checkReadiness:
      options.checkReadiness ??
      sharedCheck(() => checkHealth({ address: config.AUTH_GRPC_ADDR, tls: internalTls, serverIdentity: 'auth' }), READINESS_TTL_MS),
    budgets: options.budgets,
    authenticator: { usageFlushIntervalMs: config.API_KEY_USAGE_FLUSH_MS },
  });
  await gateway.start();

  const { server, scheme } = await createServer(config, logger, gateway.app);
  const connections = trackConnections(server);
  await listen(server, config);
  const port = (server.address() as AddressInfo).port;
  const host = config.CRM_HOST === '0.0.0.0' || config.CRM_HOST === '::' ? 'localhost' : config.CRM_HOST;
  const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      gateway.drain();
      connections.closeEachAfterAnswer();
      if (options.drainDelayMs) await new Promise((resolve) => setTimeout(resolve, options.drainDelayMs));
      const graceMs = options.drainGraceMs ?? 10_000;
      const graceEnds = Date.now() + graceMs;
      await closeWithin(server, graceMs, () =>
        logger.warn({ open: connections.open() }, 'drain grace over; closing the remaining connections'),
      );
      // A request whose client hung up runs on with no connection to wait for: its key is settled
      // (its answer kept for the retry) in what is left of the grace, not left claimed by an exited process.
      const unsettled = await gateway.settleIdempotencyClaims(Math.max(0, graceEnds - Date.now()));
      if (unsettled > 0) logger.warn({ unsettled }, 'stopping with Idempotency-Key claims unsettled; they lapse unrenewed');
      await gateway.close();
      if (!options.rateLimitCounter) await counter.close();
      if (!options.invalidation) await invalidation.close?.();
      if (!options.idempotencyStore) await idempotencyStore.close();
      ownedAuth?.close();
    })());

  return { url, port, stop };
}

function observeCounting(counter: RateLimitCounter): void {
  // 1 while this replica counts on its own (Redis unreachable): each replica then enforces only its share.
  gauge(
    'rate_limit_local_counting',
    'Whether this replica counts rate limits in memory (1) rather than in shared Redis (0).',
    [],
    function collect() {
      this.set(counter.mode() === 'local' ? 1 : 0);
    },
  );
}

/** HTTPS with the gateway's certificate, or plain HTTP behind a TLS-terminating ingress; timeouts past load balancers' idle ones. */
async function createServer(
  config: GatewayConfig,
  logger: Logger,
  app: RequestListener,
): Promise<{ server: Server; scheme: 'https' | 'http' }> {
  let server: Server;
  let scheme: 'https' | 'http';
  if (config.TLS_TERMINATED_UPSTREAM) {
    if (config.TRUSTED_PROXIES.length === 0)
      logger.warn('TLS_TERMINATED_UPSTREAM without TRUSTED_PROXIES: every client has the ingress address; rate limits are shared');
    server = createHttpServer(app);
    scheme = 'http';
  } else {
    const tls = await loadTlsMaterial(config, logger);
    server = createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, app);
    scheme = 'https';
  }
  continueWhenBodyIsRead(server);
  server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  return { server, scheme };
}

/**
 * The server's open connections, and the switch that ends each at its next answer. From the start
 * of a drain, every answer ends its connection: a keep-alive client reconnects through the Service
 * to another replica at its next request, instead of finding its connection closed under it when
 * the listener shuts. Connections left idle through the whole drain delay are closed at its end; a
 * client whose idle timeout is shorter than DRAIN_DELAY_MS (load balancers are set so) has dropped
 * them already.
 */
function trackConnections(server: Server): { closeEachAfterAnswer(): void; open(): number } {
  let closing = false;
  // Prepended, so it runs before the app answers.
  server.prependListener('request', (_req, res: ServerResponse) => {
    if (closing) res.setHeader('connection', 'close');
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return {
    closeEachAfterAnswer: () => {
      closing = true;
    },
    open: () => sockets.size,
  };
}

function listen(server: Server, config: GatewayConfig): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.CRM_PORT, config.CRM_HOST, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops listening and waits for the open connections to end, for `graceMs` at most: then closes them all. */
async function closeWithin(server: Server, graceMs: number, onGraceOver: () => void): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      onGraceOver();
      server.closeAllConnections();
      resolve();
    }, graceMs);
    timer.unref();
    void closed.then(() => clearTimeout(timer));
  });
  await Promise.race([closed, grace]);
}
