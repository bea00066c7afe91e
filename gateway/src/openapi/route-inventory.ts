/**
 * The routes an Express app actually serves, read from its router, and how they compare with an
 * OpenAPI document's paths: what keeps the document complete as route files are added.
 */
import type { Express } from 'express';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD /path` for every route, with Express `:param` written as OpenAPI `{param}` and no trailing slash. */
export function registeredRoutes(app: Express): string[] {
  const found = new Set<string>();
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const method of METHODS) {
          if (!layer.route.methods[method]) continue;
          for (const path of paths) found.add(`${method.toUpperCase()} ${normalise(path.replace(/:(\w+)/g, '{$1}'))}`);
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return [...found].sort();
}

export function documentedRoutes(document: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const [path, operations] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) if (operations[method]) found.push(`${method.toUpperCase()} ${normalise(path)}`);
  }
  return found.sort();
}

function normalise(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

export function compareRoutes(app: Express, document: Record<string, unknown>): { undocumented: string[]; unserved: string[] } {
  const served = registeredRoutes(app);
  const documented = documentedRoutes(document);
  return {
    undocumented: served.filter((route) => !documented.includes(route)),
    unserved: documented.filter((route) => !served.includes(route)),
  };
}
