/**
 * Which API key scope each route needs, stated once: a route's family comes from its path prefix
 * (the longest prefix in ROUTE_FAMILIES wins), its action from its method (GET/HEAD read, anything
 * else write, except the POSTs that only read: query and aggregate). The gateway checks it once for every key request (apiKeyScopes, mounted in app.ts),
 * and the OpenAPI document shows it on every operation as `x-scope` (openapi/document.ts). A route
 * under no prefix has no scope: the spec beside this file enumerates every served route and fails.
 */
import type { RequestHandler } from 'express';
import { DomainError } from '@crm/observability';
import { API_KEY_SCOPES, scopesAllow, type ApiKeyScope, type ScopeFamily } from '@crm/vocabulary';

/**
 * What a route asks of an API key: a scope; `none` (any key, e.g. the current user, the document);
 * `allScopes` (only a key holding every scope, as keys created without scopes do: the settings reads,
 * which no family covers); `closed` (no key at all: admin-only settings writes, a user's own sessions).
 */
export type RouteScope = ApiKeyScope | 'none' | 'allScopes' | 'closed';

/** `openSettings`: settings every key may read (`none`) and none may write (`closed`, admins only). */
type PrefixRule = ScopeFamily | 'none' | 'closed' | 'settings' | 'openSettings';

/** Path prefix (whole segments) → family or rule. Longer prefixes override shorter ones. */
export const ROUTE_FAMILIES: Readonly<Record<string, PrefixRule>> = {
  '/api/contacts': 'contacts',
  '/api/leads': 'leads',
  '/api/accounts': 'accounts',
  '/api/opportunities': 'opportunities',
  '/api/automations': 'automations',
  // Both imports: the synchronous one under a contact path, and the jobs.
  '/api/contacts/import': 'imports',
  '/api/crm/contacts/import': 'imports',
  '/api/crm/contacts/import-jobs': 'imports',
  '/api/exports': 'exports',
  '/api/activities': 'activity',
  '/api/tasks': 'activity',
  '/api/emails': 'activity',
  '/api/notifications': 'activity',
  '/api/crm/sources': 'activity',
  '/api/events': 'events',
  // The current user and the public sign-in flows.
  '/api/auth': 'none',
  // A user's own sessions: keys have none.
  '/api/auth/logout-all': 'closed',
  // The audit log: for a logged-in admin only (a record's history is its family's read).
  '/api/audit-log': 'closed',
  // Privacy export, erasure and suppressions: for a logged-in admin only.
  '/api/privacy': 'closed',
  '/api/settings': 'settings',
  // Custom field definitions: what any key writing records needs to know, so any key reads them.
  '/api/settings/custom-fields': 'openSettings',
  '/api/openapi.json': 'none',
  '/api/docs': 'none',
  '/healthz': 'none',
  '/readyz': 'none',
};

const READS = new Set(['GET', 'HEAD']);
/** POSTs that only read (their filter is too big for a query string): a family's read scope is enough. */
const READING_POSTS = new Set(['query', 'aggregate']);

function segments(path: string): string[] {
  return path.toLowerCase().split('/').filter(Boolean);
}

const PREFIXES = Object.entries(ROUTE_FAMILIES)
  .map(([prefix, rule]) => ({ segments: segments(prefix), rule }))
  .sort((a, b) => b.segments.length - a.segments.length);

/** The scope a route needs, by method and path template; undefined when no rule covers it. */
export function routeScope(method: string, template: string): RouteScope | undefined {
  const path = segments(template);
  const match = PREFIXES.find((p) => p.segments.every((segment, i) => path[i] === segment));
  if (!match) return undefined;
  const read = READS.has(method.toUpperCase()) || (method.toUpperCase() === 'POST' && READING_POSTS.has(path.at(-1) ?? ''));
  if (match.rule === 'none' || match.rule === 'closed') return match.rule;
  if (match.rule === 'settings') return read ? 'allScopes' : 'closed';
  if (match.rule === 'openSettings') return read ? 'none' : 'closed';
  const scope = `${match.rule}:${read ? 'read' : 'write'}`;
  // A read-only family (the change feed) has no write scope, so its writes are no key's.
  return (API_KEY_SCOPES as readonly string[]).includes(scope) ? (scope as ApiKeyScope) : 'closed';
}

/** Whether a key holding `held` may call a route needing `needed`. */
export function keyMayCall(held: readonly string[], needed: RouteScope | undefined): boolean {
  if (needed === 'none') return true;
  if (needed === undefined || needed === 'closed') return false;
  if (needed === 'allScopes') return holdsEveryScope(held);
  return scopesAllow(held, needed);
}

export function holdsEveryScope(held: readonly string[]): boolean {
  return API_KEY_SCOPES.every((scope) => scopesAllow(held, scope));
}

interface ScopedRoute {
  route: string;
  pattern: RegExp;
  /** Static segments: when two templates match a path, the one with more (`/contacts/import` over `/contacts/{id}`) is Express's route. */
  staticSegments: number;
  scope: RouteScope | undefined;
}

/** The served routes (`METHOD /path/{param}`, openapi/route-inventory.ts) with their scopes, matched against request paths. */
export class RouteScopeTable {
  private readonly byMethod = new Map<string, ScopedRoute[]>();

  constructor(routes: string[]) {
    for (const route of routes) {
      const [method, template] = route.split(' ') as [string, string];
      const parts = segments(template);
      const pattern = new RegExp(
        `^/${parts.map((part) => (/^\{.+\}$/.test(part) ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))).join('/')}$`,
        'i',
      );
      const entry = { route, pattern, staticSegments: parts.filter((p) => !p.startsWith('{')).length, scope: routeScope(method, template) };
      this.byMethod.set(method, [...(this.byMethod.get(method) ?? []), entry]);
    }
    for (const list of this.byMethod.values()) list.sort((a, b) => b.staticSegments - a.staticSegments);
  }

  /** The served route a request reaches (HEAD as GET), or undefined when none does (a 404 or 405 follows). */
  match(method: string, path: string): ScopedRoute | undefined {
    const normal = `/${segments(path).join('/')}`;
    const upper = method.toUpperCase();
    return this.byMethod.get(upper === 'HEAD' ? 'GET' : upper)?.find((entry) => entry.pattern.test(normal));
  }

  /** Routes no rule covers: must stay empty (route-scopes.spec.ts). */
  unscoped(): string[] {
    return [...this.byMethod.values()]
      .flat()
      .filter((entry) => entry.scope === undefined)
      .map((entry) => entry.route);
  }
}

export function outOfScope(held: readonly string[], needed: RouteScope | undefined): string {
  if (needed === 'allScopes')
    return `This API key is limited to the scopes ${held.join(', ')}; workspace settings need a key holding every scope.`;
  if (needed === undefined || needed === 'closed' || needed === 'none') return 'API keys cannot call this route.';
  return `This API key lacks the scope ${needed} (it holds ${held.join(', ')}).`;
}

/**
 * Mounted after authentication (app.ts): a request made with an API key reaches a route only if the
 * key's scopes allow it. Users pass (their role decides); paths no route serves pass on to the 404/405.
 */
export function apiKeyScopes(table: () => RouteScopeTable): RequestHandler {
  return (req, res, next) => {
    const caller = res.locals.caller;
    if (caller?.actorKind !== 'api_key' || !caller.scopes) return next();
    const route = table().match(req.method, req.path);
    if (!route || keyMayCall(caller.scopes, route.scope)) return next();
    throw new DomainError('permission_denied', outOfScope(caller.scopes, route.scope));
  };
}
