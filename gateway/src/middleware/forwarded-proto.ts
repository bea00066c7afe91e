import type { RequestHandler } from 'express';
import { DomainError } from '@crm/observability';

/**
 * Behind a TLS-terminating ingress the gateway listens in plain HTTP, so it refuses any request
 * the ingress did not mark as having arrived over HTTPS: plain HTTP is never served. Kubernetes
 * probes reach the pod directly (no ingress, no header), so the probe paths are exempt.
 */
export function requireForwardedHttps(): RequestHandler {
  return (req, _res, next) => {
    if (req.path === '/healthz' || req.path === '/readyz') return next();
    const proto = req.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
    if (proto !== 'https') return next(DomainError.invalid('HTTPS is required.'));
    next();
  };
}
