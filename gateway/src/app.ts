/**
 * The gateway's Express app, built from injected dependencies so tests can build it against a
 * fake auth service. The middleware order is the point of this file; each step relies on the ones
 * before it (see the numbered comments).
 */
import express, { type Express, type RequestHandler } from 'express';
import type { InternalTls } from '@crm/grpc';
import { DomainError, type Logger } from '@crm/observability';
import type { RateLimitCounter } from '@crm/rate-limit';
import { settingsWritesForAdmins } from './auth/admin-guard';
import { Authenticator, type AuthenticatorOptions } from './auth/authenticator';
import { apiKeyScopes, RouteScopeTable } from './auth/route-scopes';
import type { AuthClient } from './clients/auth-client';
import type { InvalidationChannel } from '@crm/rate-limit';
import type { GatewayConfig } from './config';
import { apiVersion } from './middleware/api-version';
import { errorHandler } from './middleware/error-handler';
import { requireForwardedHttps } from './middleware/forwarded-proto';
import { jsonBody } from './middleware/json-body';
import { BATCH_PATHS } from './routes/records/record-batch.routes';
import { BATCH_LIMITS } from '@crm/vocabulary';
import { methodNotAllowed } from './middleware/method-not-allowed';
import { DEFAULT_BUDGETS, RateLimiter, type RateLimitBudgets } from './middleware/rate-limit';
import { requestId } from './middleware/request-id';
import { securityHeaders } from './middleware/security-headers';
import { traceContext } from './middleware/trace-context';
import { buildOpenApiDocument } from './openapi/document';
import { registeredRoutes } from './openapi/route-inventory';
import { apiDocsRoutes } from './openapi/api-docs.routes';
import { openApiRoutes } from './openapi/openapi.routes';
import { routeModules, type RouteDeps, type RouteModule } from './routes';
import { CONTACT_IMPORT_NOW_PATH } from './routes/contact-import-now';
import { IMPORT_START_PATH, importUploadProxy } from './routes/import.routes';
import type { IdempotencyStore } from './idempotency/idempotency-store';
import { idempotentPosts } from './idempotency/idempotent-posts';
import { requestIds, traceFields } from './request-context';
import { MemoryIdempotencyStore } from './idempotency/memory-idempotency-store';
import { bindToActiveContext, counter, histogram } from '@crm/telemetry';

export interface AppDeps {
  config: GatewayConfig;
  logger: Logger;
  auth: AuthClient;
  /** The gateway's internal certificate (startGateway loads it); absent: plaintext gRPC, for unit tests with fake services. */
  internalTls?: InternalTls | null;
  rateLimitCounter: RateLimitCounter;
  invalidation: InvalidationChannel;
  /** Readiness check; default: always ready. */
  checkReadiness?: () => Promise<boolean>;
  budgets?: Partial<RateLimitBudgets>;
  authenticator?: AuthenticatorOptions;
  /** Idempotency-Key state; default: this process's memory. */
  idempotencyStore?: IdempotencyStore;
}

export interface GatewayApp {
  app: Express;
  modules: RouteModule[];
  openApiDocument: () => Record<string, unknown>;
  authenticator: Authenticator;
  /** Subscribes to invalidations and starts the usage flusher. */
  start(): Promise<void>;
  /** Marks the app as draining (readiness fails from now on). */
  drain(): void;
  /** Waits up to `timeoutMs` for requests holding an Idempotency-Key to settle it; answers how many have not. */
  settleIdempotencyClaims(timeoutMs: number): Promise<number>;
  /** Flushes API key usage and unsubscribes. */
  close(): Promise<void>;
}

const httpRequests = counter('http_requests_total', 'HTTP requests answered, by method, route and status.', ['method', 'route', 'status']);
const httpSeconds = histogram(
  'http_request_duration_seconds',
  'HTTP request latency, by method and route.',
  ['method', 'route'],
  [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
);

/** One log line and the request metrics per response. Routes are labelled by pattern, never by raw path. */
function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const logResponse = () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const route = typeof req.route?.path === 'string' ? req.route.path : 'unmatched';
      httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      httpSeconds.observe({ method: req.method, route }, ms / 1000);
      logger.info(
        {
          ...traceFields(res),
          requestId: res.locals.requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          workspaceId: res.locals.caller?.workspaceId,
          actorKind: res.locals.caller?.actorKind,
        },
        'request',
      );
    };
    // The trace fields come from res.locals when the gateway carries its trace by hand (trace-context.ts;
    // binding would run the callback in an async context, the cost that avoids). When spans are
    // exported, the callback is bound to the request's context: 'finish' is emitted from the socket's.
    res.on('finish', res.locals.trace ? logResponse : bindToActiveContext(logResponse));
    next();
  };
}

export function createApp(deps: AppDeps): GatewayApp {
  const { config, logger } = deps;
  const authenticator = new Authenticator(deps.auth, deps.invalidation, logger, deps.authenticator);
  const limiter = new RateLimiter(deps.rateLimitCounter, logger, { ...DEFAULT_BUDGETS, ...deps.budgets });
  let draining = false;
  const idempotencyStore = deps.idempotencyStore ?? new MemoryIdempotencyStore();
  const idempotency = idempotentPosts(idempotencyStore, logger, (req) =>
    [IMPORT_START_PATH, CONTACT_IMPORT_NOW_PATH].includes(req.path.replace(/\/+$/, '')),
  );
  const routeDeps: RouteDeps = {
    config,
    logger,
    internalTls: deps.internalTls ?? null,
    auth: deps.auth,
    authenticator,
    invalidation: deps.invalidation,
    limiter,
    checkReadiness: deps.checkReadiness ?? (async () => true),
    isDraining: () => draining,
    idempotencyStore,
  };
  const { modules, openApiDocument } = modulesWithDocument(routeDeps);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The client is the socket's peer, unless that peer is one of the proxies the operator named: then
  // the last address in X-Forwarded-For that none of them added (a client's own entries are ignored).
  app.set('trust proxy', config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false);
  mountPublicSteps(app, routeDeps, modules);
  mountAuthenticatedSteps(app, routeDeps, modules, idempotency, deps);

  return {
    app,
    modules,
    openApiDocument,
    authenticator,
    start: () => authenticator.start(),
    drain: () => {
      draining = true;
    },
    settleIdempotencyClaims: (timeoutMs) => idempotency.settleOpen(timeoutMs),
    close: () => authenticator.stop(),
  };
}

/** Every area's routes, and the document and its reference page built from their paths. */
function modulesWithDocument(routeDeps: RouteDeps): { modules: RouteModule[]; openApiDocument: () => Record<string, unknown> } {
  const { config, logger, authenticator, limiter } = routeDeps;
  let document: Record<string, unknown> | undefined;
  const openApiDocument = (): Record<string, unknown> =>
    (document ??= buildOpenApiDocument({ serverUrl: config.PUBLIC_BASE_URL, paths: modules.map((m) => m.paths) }));
  const areas = routeModules(routeDeps);
  // GET /api/openapi.json with a credential: the workspace's view (its custom fields), else the public document.
  const personalDocument = async (req: express.Request, res: express.Response): Promise<Record<string, unknown> | undefined> => {
    const documentFor = areas.find((module) => module.documentFor)?.documentFor;
    if (!documentFor) return undefined;
    try {
      res.locals.caller = await authenticator.authenticate(req.get('authorization'), requestIds(res));
      return await documentFor(res, openApiDocument());
    } catch (error) {
      logger.debug({ err: error }, 'serving the public OpenAPI document');
      return undefined;
    }
  };
  const modules: RouteModule[] = [openApiRoutes(openApiDocument, personalDocument), apiDocsRoutes(limiter.addressLimit()), ...areas];
  return { modules, openApiDocument };
}

/** Steps 0–5: what every request goes through before it is authenticated, and the public routes. */
function mountPublicSteps(app: express.Express, { config, logger, limiter }: RouteDeps, modules: RouteModule[]): void {
  // 0. The trace id, which every later log line and internal call carries.
  app.use(traceContext());
  // 1. A request id first, so every later response and log line carries it.
  app.use(requestId());
  app.use(accessLog(logger));
  // 2. Security headers on everything, errors included.
  app.use(securityHeaders());
  // 3. Behind a TLS-terminating ingress, refuse what didn't arrive over HTTPS.
  if (config.TLS_TERMINATED_UPSTREAM) app.use(requireForwardedHttps());
  // 4. /api/v1 → /api; other versions 404 before anything looks at the path.
  app.use(apiVersion());
  // 5. Public routes (probes, the document and its reference page, login/refresh/signup with their own per-address limits).
  for (const module of modules.filter((m) => m.access === 'public')) {
    if (module.name === 'openapi') app.use('/api/openapi.json', limiter.addressLimit());
    app.use(module.router);
  }
}

/** Steps 6–11: authentication, limits, roles and scopes, idempotency, bodies, the routes, and the one error handler. */
function mountAuthenticatedSteps(
  app: express.Express,
  { config, logger, limiter, authenticator }: RouteDeps,
  modules: RouteModule[],
  idempotency: ReturnType<typeof idempotentPosts>,
  deps: AppDeps,
): void {
  // 6. Authentication: a failure is held, not raised, until 7 has counted the request.
  app.use(async (req, res, next) => {
    try {
      res.locals.caller = await authenticator.authenticate(req.get('authorization'), requestIds(res));
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'unauthenticated') res.locals.authFailure = error;
      else return next(error);
    }
    next();
  });
  // 7. Per-workspace rate limit (anonymous per address when 6 failed), then 6's failure if any.
  app.use(limiter.workspaceLimit());
  // 7a. Roles: every write under /api/settings/ is for admins (members and API keys get 403).
  app.use(settingsWritesForAdmins(deps.auth));
  // 7b. Scopes: an API key reaches only the routes its scopes cover (one table, auth/route-scopes.ts).
  let scopeTable: RouteScopeTable | undefined;
  app.use(apiKeyScopes(() => (scopeTable ??= new RouteScopeTable(registeredRoutes(app)))));
  // 7c. Idempotency-Key, per workspace: uploads (both imports) here, before their body is read; other POSTs after 8b.
  app.use(idempotency.streamedUploads);
  // 8. The CSV import upload is streamed to the import service as it arrives, so it goes before the JSON parser.
  app.use(
    importUploadProxy(logger, {
      url: config.IMPORT_UPLOAD_URL.replace(/\/+$/, ''),
      secret: config.IMPORT_UPLOAD_SECRET,
      tls: deps.internalTls ?? null,
    }),
  );
  // 8a. Routes that read their own multipart bodies (the synchronous import).
  for (const module of modules.filter((m) => m.access === 'authenticated' && m.rawBodyRouter)) app.use(module.rawBodyRouter!);
  // 8b. JSON bodies, for authenticated routes only (public ones parse after their own limits).
  app.use(BATCH_PATHS, jsonBody(String(BATCH_LIMITS.maxBodyBytes)));
  app.use(jsonBody(config.BODY_LIMIT));
  app.use(idempotency.jsonPosts);
  // 9. Routes.
  for (const module of modules.filter((m) => m.access === 'authenticated')) app.use(module.router);
  // 10. Nothing matched: a served path asked with another method is a 405 with Allow, anything else a 404.
  app.use(methodNotAllowed(app, limiter));
  app.use((_req, _res, next) => next(DomainError.notFound()));
  // 11. The one error handler.
  app.use(errorHandler(logger, limiter));
}
