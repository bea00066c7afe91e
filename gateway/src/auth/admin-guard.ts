/**
 * Roles at the gateway. Members (and API keys, which act with member rights) may read everything
 * and write everywhere except the workspace's settings: every write under /api/settings/ is for
 * admins, checked here once for all settings routes (users, API keys, webhooks, ...). The role is
 * read from auth on each settings write, so a promotion or demotion counts from the next request
 * on every replica; settings writes are rare enough for one extra call.
 */
import type { Request, RequestHandler, Response } from 'express';
import { DomainError } from '@crm/observability';
import { GRPC_DEADLINE_MS, type AuthClient } from '../clients/auth-client';
import { callerContext, callerOf } from '../request-context';

export const SETTINGS_PREFIX = '/api/settings/';
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const ADMIN_ONLY = 'Only workspace admins can change workspace settings.';
export const API_KEY_NOT_ADMIN = 'API keys act with member rights: only a workspace admin, logged in, can change workspace settings.';

/** 403 unless the caller is a logged-in admin of their workspace. */
export async function requireAdmin(auth: AuthClient, res: Response): Promise<void> {
  const caller = callerOf(res);
  if (caller.actorKind !== 'user') throw new DomainError('permission_denied', API_KEY_NOT_ADMIN);
  const user = await auth.call('GetCurrentUser', {}, callerContext(res), { timeoutMs: GRPC_DEADLINE_MS });
  if (user.role !== 'admin') throw new DomainError('permission_denied', ADMIN_ONLY);
}

/** One route (or router) for admins only: `router.post(path, adminOnly(deps.auth), handler)`. */
export function adminOnly(auth: AuthClient): RequestHandler {
  return async (_req, res, next) => {
    await requireAdmin(auth, res);
    next();
  };
}

/** Routes match paths case-insensitively and with repeated slashes, so the check does too. */
export function isSettingsWrite(req: Request): boolean {
  const path = `${req.path
    .toLowerCase()
    .replace(/\/{2,}/g, '/')
    .replace(/\/+$/, '')}/`;
  return !READS.has(req.method) && path.startsWith(SETTINGS_PREFIX);
}

/** Mounted once before the authenticated routes (app.ts): every settings write is for admins. */
export function settingsWritesForAdmins(auth: AuthClient): RequestHandler {
  return async (req, res, next) => {
    if (isSettingsWrite(req)) await requireAdmin(auth, res);
    next();
  };
}
