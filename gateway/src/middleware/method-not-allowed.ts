/**
 * A path the gateway serves, asked with a method it does not serve, answers 405 with `Allow` in
 * the spec's error shape instead of the 404 of an unknown path. The paths and methods come from
 * the routes the app registered (openapi/route-inventory.ts), so the answer cannot drift from them.
 */
import type { Express, RequestHandler } from 'express';
import { registeredRoutes } from '../openapi/route-inventory';
import type { RateLimiter } from './rate-limit';

interface KnownPath {
  pattern: RegExp;
  methods: Set<string>;
}

/** `METHOD /api/x/{id}` lines grouped by path, each path as a pattern (a trailing slash optional). */
export function knownPaths(routes: string[]): KnownPath[] {
  const byPath = new Map<string, Set<string>>();
  for (const route of routes) {
    const [method, path] = route.split(' ');
    const methods = byPath.get(path) ?? new Set<string>();
    methods.add(method);
    if (method === 'GET') methods.add('HEAD');
    byPath.set(path, methods);
  }
  return [...byPath].map(([path, methods]) => ({
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`),
    methods,
  }));
}

/** The methods a path allows (empty when no route serves the path at all). */
export function allowedMethods(paths: KnownPath[], path: string): string[] {
  const allowed = new Set<string>();
  for (const known of paths) if (known.pattern.test(path)) for (const method of known.methods) allowed.add(method);
  return [...allowed].sort();
}

/** Goes where nothing else matched: a known path answers 405, anything else falls through to the 404. */
export function methodNotAllowed(app: Express, limiter: RateLimiter): RequestHandler {
  let paths: KnownPath[] | undefined;
  return async (req, res, next) => {
    paths ??= knownPaths(registeredRoutes(app));
    const allowed = allowedMethods(paths, req.path);
    if (allowed.length === 0 || allowed.includes(req.method)) return next();
    try {
      await limiter.ensureHeaders(req, res);
    } catch (error) {
      return next(error);
    }
    if (res.headersSent) return;
    res.setHeader('Allow', allowed.join(', '));
    res.status(405).json({ detail: `Method "${req.method}" not allowed.` });
  };
}
