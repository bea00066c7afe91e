/** Logout (public, by refresh token), logout everywhere, and an admin ending a user's sessions. */
import { Router, type Response } from 'express';
import { GRPC_DEADLINE_MS } from '../clients/auth-client';
import { jsonBody } from '../middleware/json-body';
import { idParameter, operation, type OpenApiPaths } from '../openapi/operation';
import { callerContext, callerOf, requestIds } from '../request-context';
import { refreshBody, refreshFields } from './auth.routes';
import { bodySchemaOf } from './field-table';
import type { RouteDeps, RouteModule } from './route-module';
import { parseBody, pathId } from './validate';

const ACCESS_TOKENS_END =
  "The user's access tokens get 401 on the next request through any gateway (auth announces the change to every replica; a replica that missed it re-reads within seconds).";

export function logoutRoutes(deps: RouteDeps): RouteModule {
  const { auth, limiter, config } = deps;
  const router = Router();
  router.post('/api/auth/logout', limiter.sessionLimit(), jsonBody(config.BODY_LIMIT), async (req, res) => {
    const input = parseBody(refreshBody, req.body);
    await auth.call('LogOut', input, requestIds(res), { timeoutMs: GRPC_DEADLINE_MS });
    res.status(204).end();
  });
  return { name: 'logout', access: 'public', router, paths: logoutPaths() };
}

export function sessionEndRoutes(deps: RouteDeps): RouteModule {
  const { auth, authenticator } = deps;
  const router = Router();
  /** `userId` empty: the caller's own sessions. */
  const endSessions = async (res: Response, userId: string) => {
    await auth.call('EndSessions', { userId }, callerContext(res), { timeoutMs: GRPC_DEADLINE_MS });
    // Auth announces it to every replica; this one re-reads at once, before the caller's next request.
    authenticator.workspaces.evict(callerOf(res).workspaceId);
    res.status(204).end();
  };
  router.post('/api/auth/logout-all', (_req, res) => endSessions(res, ''));
  router.post('/api/settings/users/:id/logout', (req, res) => endSessions(res, pathId(req.params.id)));
  return { name: 'session-end', access: 'authenticated', router, paths: sessionEndPaths() };
}

/** The OpenAPI part of {@link logoutRoutes}. */
export function logoutPaths(): OpenApiPaths {
  return {
    '/api/auth/logout/': {
      post: operation({
        operationId: 'logOut',
        summary: 'End the session of a refresh token',
        description:
          'Every refresh token of that login stops working (a later refresh answers 401). Its access token lives out its lifetime (at most 1 h); to end those at once, use logout-all. An unknown or already revoked token answers 204 too. Limited per client address.',
        tags: ['auth'],
        authenticated: false,
        requestBody: bodySchemaOf(refreshFields, 'create'),
        responses: { 204: { description: 'Logged out; no body.' } },
      }),
    },
  };
}

/** The OpenAPI part of {@link sessionEndRoutes}. */
export function sessionEndPaths(): OpenApiPaths {
  return {
    '/api/auth/logout-all/': {
      post: operation({
        operationId: 'logOutEverywhere',
        summary: 'End every session of the caller, on every device',
        description: `Every refresh token of the caller is revoked. ${ACCESS_TOKENS_END} Needs a user login: an API key answers 403.`,
        tags: ['auth'],
        authenticated: true,
        roles: ['admin', 'member'],
        responses: { 204: { description: 'Every session ended; no body.' } },
        errors: [403],
      }),
    },
    '/api/settings/users/{id}/logout/': {
      post: operation({
        operationId: 'endUserSessions',
        summary: 'End every session of a user of the workspace (admins)',
        description: `Every refresh token of the user is revoked. ${ACCESS_TOKENS_END} Members and API keys answer 403; a user of another workspace 404.`,
        tags: ['auth'],
        authenticated: true,
        parameters: [idParameter('The user whose sessions end.')],
        responses: { 204: { description: "The user's sessions ended; no body." } },
        errors: [403, 404],
      }),
    },
  };
}
