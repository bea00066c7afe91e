/**
 * The API key scope of every operation, stated in the document (`x-scope`) from the same table the
 * gateway enforces (auth/route-scopes.ts).
 */
import { SCOPE_FAMILIES } from '@crm/vocabulary';
import { routeScope } from '../auth/route-scopes';
import type { OpenApiOperation, OpenApiPaths } from './operation';

export const SCOPES_DESCRIPTION = `**API key scopes.** A workspace API key may be limited to scopes (\`scopes\` when it is created; every scope when left out) and may expire (\`expiresAt\`; an expired key answers 401 like any bad credential). A scope is \`<family>:read\` (GET and HEAD, and the POSTs that only read: \`query\`, \`aggregate\`) or \`<family>:write\` (every other method, and reading too) for the families ${SCOPE_FAMILIES.map((f) => `\`${f}\``).join(', ')} (\`events\` is read only). Each operation names the scope it needs in \`x-scope\`: a scope; \`none\` (any key: the current user, this document, the custom field definitions); \`allScopes\` (only a key holding every scope: the other settings reads); or \`closed\` (no API key: admin-only settings writes, a user's own sessions). A key calling an operation outside its scopes answers \`403 {"detail": ...}\` naming the scope it lacks.`;

/** A key outside the operation's scope gets 403, so every operation a scope guards lists it. */
function withForbidden(operation: OpenApiOperation): OpenApiOperation {
  const responses = { ...(operation.responses as Record<string, unknown>) };
  responses['403'] ??= { $ref: '#/components/responses/Forbidden' };
  return { ...operation, responses };
}

export function withScopes(paths: OpenApiPaths): OpenApiPaths {
  const out: OpenApiPaths = {};
  for (const [path, operations] of Object.entries(paths)) {
    out[path] = {};
    for (const [method, operation] of Object.entries(operations) as [keyof (typeof operations & object), OpenApiOperation][]) {
      const authenticated = Array.isArray(operation.security) && operation.security.length > 0;
      const scope = routeScope(method, path);
      if (!scope) out[path][method] = operation;
      else if (scope === 'none' || !authenticated) out[path][method] = { ...operation, 'x-scope': scope };
      else out[path][method] = { ...withForbidden(operation), 'x-scope': scope };
    }
  }
  return out;
}
