/**
 * Kubernetes probes, without authentication and outside the rate limits (kubelets probe every
 * replica from the node's address; counting them would let probes starve each other).
 * Liveness: the process answers. Readiness: auth answers its health check and we aren't draining.
 */
import { Router } from 'express';
import { operation, type OpenApiPaths } from '../openapi/operation';
import type { RouteDeps, RouteModule } from './route-module';

export function healthRoutes(deps: RouteDeps): RouteModule {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const ready = !deps.isDraining() && (await deps.checkReadiness().catch(() => false));
    if (ready) res.json({ status: 'ready' });
    else res.status(503).json({ detail: deps.isDraining() ? 'Shutting down; unavailable.' : 'Authentication service unavailable.' });
  });
  return { name: 'health', access: 'public', router, paths: healthPaths() };
}

const probe = (operationId: string, summary: string) =>
  operation({
    operationId,
    summary,
    description: 'No authentication; not rate limited and without X-RateLimit-* headers.',
    tags: ['meta'],
    authenticated: false,
    rateLimited: false,
    responses: {
      200: { description: 'OK.', schema: { type: 'object', required: ['status'], properties: { status: { type: 'string' } } } },
    },
  });

/** The OpenAPI part of {@link healthRoutes}. */
export function healthPaths(): OpenApiPaths {
  return {
    '/healthz': { get: probe('getLiveness', 'Liveness: the gateway process is up') },
    '/readyz': { get: probe('getReadiness', 'Readiness: the gateway can reach the authentication service (503 otherwise)') },
  };
}
