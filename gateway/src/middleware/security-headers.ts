import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * Security headers for a JSON API: HSTS, nosniff, no framing, no referrer, a CSP that allows
 * nothing (responses are data, never documents), and no caching of anything the API answers.
 */
export function securityHeaders(): RequestHandler[] {
  return [
    helmet({
      strictTransportSecurity: { maxAge: 63_072_000, includeSubDomains: true },
      frameguard: { action: 'deny' },
      contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
      referrerPolicy: { policy: 'no-referrer' },
      xPoweredBy: false,
    }),
    (_req, res, next) => {
      res.setHeader('Cache-Control', 'no-store');
      next();
    },
  ];
}
