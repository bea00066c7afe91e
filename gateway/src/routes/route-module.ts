import type { Response, Router } from 'express';
import type { InternalTls } from '@crm/grpc';
import type { Logger } from '@crm/observability';
import type { Authenticator } from '../auth/authenticator';
import type { AuthClient } from '../clients/auth-client';
import type { InvalidationChannel } from '@crm/rate-limit';
import type { GatewayConfig } from '../config';
import type { RateLimiter } from '../middleware/rate-limit';
import type { IdempotencyStore } from '../idempotency/idempotency-store';
import type { OpenApiPaths } from '../openapi/operation';

/**
 * One area of the public API: its router and the OpenAPI paths it serves. `public` routes are
 * mounted before authentication; `authenticated` ones after authentication, the workspace rate
 * limit and body parsing. Routers declare full paths (`/api/...`, no trailing slash: it is optional).
 */
export interface RouteModule {
  name: string;
  access: 'public' | 'authenticated';
  router: Router;
  /** Authenticated routes that read their own (multipart) bodies: mounted before the JSON body parser. */
  rawBodyRouter?: Router;
  /** This area's part of the document, from its pure `...Paths` functions (built apart from the handlers). */
  paths: OpenApiPaths;
  /**
   * The document as the caller's workspace sees it (GET /api/openapi.json with a credential): this
   * area's part of it rewritten for the workspace (`res.locals.caller` is set). At most one module has it.
   */
  documentFor?: (res: Response, document: Record<string, unknown>) => Promise<Record<string, unknown>>;
}

export interface RouteDeps {
  config: GatewayConfig;
  logger: Logger;
  /** The gateway's internal certificate for its gRPC clients and uploads; null: plaintext (INTERNAL_TLS=off, unit tests). */
  internalTls: InternalTls | null;
  auth: AuthClient;
  authenticator: Authenticator;
  invalidation: InvalidationChannel;
  limiter: RateLimiter;
  /** Whether the gateway's dependencies answer (readiness). */
  checkReadiness: () => Promise<boolean>;
  /** True once shutdown has begun, so readiness fails and load balancers move on. */
  isDraining: () => boolean;
  /** Where Idempotency-Key answers are kept (a privacy erasure forgets those holding the person). */
  idempotencyStore?: IdempotencyStore;
}
