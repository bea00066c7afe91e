/**
 * What each role may do, stated in the document from the same rule the gateway enforces
 * (auth/admin-guard.ts): every authenticated operation carries `x-roles`, and every write under
 * /api/settings/ is for admins only and lists its 403. An operation may name its roles itself
 * (`roles` in operation.ts), as logout-all does (a user's own sessions: no API key).
 */
import { SETTINGS_PREFIX } from '../auth/admin-guard';
import type { OpenApiOperation, OpenApiPaths } from './operation';

export const ROLES_DESCRIPTION =
  '**Roles.** A workspace user is an `admin` or a `member`; signup and `crm create-workspace` make an admin, and admins invite the others (`/api/settings/users/`). Members may do everything except writes under `/api/settings/` (users, API keys, webhooks): records, imports, automations, and reading the settings. A workspace API key acts with member rights. A member or API key attempting a settings write answers `403 {"detail": ...}`. The plan is changed by the operator (`crm change-plan`), never through this API. Each operation lists the roles that may call it in `x-roles` (`apiKey`: a workspace API key).';

const ADMIN_ONLY = ['admin'];
const EVERYONE = ['admin', 'member', 'apiKey'];

function isSettingsWrite(path: string, method: string): boolean {
  return method !== 'get' && path.startsWith(SETTINGS_PREFIX);
}

function withForbidden(operation: OpenApiOperation): OpenApiOperation {
  const responses = { ...(operation.responses as Record<string, unknown>) };
  responses['403'] ??= { $ref: '#/components/responses/Forbidden' };
  return { ...operation, responses };
}

export function withRoles(paths: OpenApiPaths): OpenApiPaths {
  const out: OpenApiPaths = {};
  for (const [path, operations] of Object.entries(paths)) {
    out[path] = {};
    for (const [method, operation] of Object.entries(operations) as [keyof (typeof operations & object), OpenApiOperation][]) {
      const authenticated = Array.isArray(operation.security) && operation.security.length > 0;
      if (!authenticated || operation['x-roles']) out[path][method] = operation;
      else if (isSettingsWrite(path, method)) out[path][method] = { ...withForbidden(operation), 'x-roles': ADMIN_ONLY };
      else out[path][method] = { ...operation, 'x-roles': EVERYONE };
    }
  }
  return out;
}
