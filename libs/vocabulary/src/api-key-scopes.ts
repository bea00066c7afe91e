/**
 * What a workspace API key may be limited to: `<family>:read` and `<family>:write` (write includes
 * read) per family of routes; the change feed is read-only. A key created without scopes holds
 * them all. The gateway's route table (gateway/src/auth/route-scopes.ts) says which family each
 * route belongs to; auth refuses any other scope.
 */

export const SCOPE_FAMILIES = [
  'contacts',
  'leads',
  'accounts',
  'opportunities',
  'automations',
  'imports',
  'exports',
  'activity',
  'events',
] as const;
export type ScopeFamily = (typeof SCOPE_FAMILIES)[number];

/** Families whose routes only read: they have no `:write` scope. */
const READ_ONLY_FAMILIES: readonly ScopeFamily[] = ['events'];

export type ApiKeyScope = `${ScopeFamily}:${'read' | 'write'}`;

export const API_KEY_SCOPES: readonly ApiKeyScope[] = SCOPE_FAMILIES.flatMap((family) =>
  READ_ONLY_FAMILIES.includes(family) ? [`${family}:read` as const] : [`${family}:read` as const, `${family}:write` as const],
);

export function isApiKeyScope(value: string): value is ApiKeyScope {
  return (API_KEY_SCOPES as readonly string[]).includes(value);
}

/** Whether a key holding `held` may use a route needing `needed`: the scope itself, or its family's write. */
export function scopesAllow(held: readonly string[], needed: ApiKeyScope): boolean {
  if (held.includes(needed)) return true;
  const [family, action] = needed.split(':');
  return action === 'read' && held.includes(`${family}:write`);
}
