/** Signup, login, token refresh (public) and the current user (authenticated). */
import { Router } from 'express';
import { DomainError } from '@crm/observability';
import type { authV1 } from '@crm/grpc';
import { ACCOUNT_LIMITS, FIELD_LIMITS } from '@crm/vocabulary';
import { GRPC_DEADLINE_MS } from '../clients/auth-client';
import { jsonBody } from '../middleware/json-body';
import { operation, ref, type OpenApiPaths } from '../openapi/operation';
import { callerContext, requestIds } from '../request-context';
import type { RouteDeps, RouteModule } from './route-module';
import { bodyCheck, bodySchemaOf, emailField, textField, tokenField, type BodyTable } from './field-table';
import { parseBody } from './validate';

const signUpFields = {
  workspaceName: textField({ max: ACCOUNT_LIMITS.workspaceName, trim: true, notBlank: true }, { required: true }),
  email: emailField(FIELD_LIMITS.email),
  // The same rules the auth service enforces, so one response lists every failing field.
  password: textField({ max: ACCOUNT_LIMITS.passwordMax, min: ACCOUNT_LIMITS.passwordMin }, { required: true }),
  firstName: textField({ max: ACCOUNT_LIMITS.personName, trim: true, notBlank: true }, { required: true }),
  lastName: textField({ max: ACCOUNT_LIMITS.personName, trim: true, notBlank: true }, { required: true }),
} satisfies BodyTable;

const logInFields = {
  email: tokenField(FIELD_LIMITS.email, { trim: true }),
  password: tokenField(1024),
} satisfies BodyTable;

/** Also the logout body. */
export const refreshFields = { refresh: tokenField(8192) } satisfies BodyTable;

export const signUpBody = bodyCheck(signUpFields);
export const logInBody = bodyCheck(logInFields);
export const refreshBody = bodyCheck(refreshFields);

export function loginUser(user: authV1.User | null): Record<string, string> {
  if (!user) throw new DomainError('internal', 'Auth answered without a user.');
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    workspaceId: user.workspaceId,
    role: user.role,
  };
}

const session = (response: authV1.SessionResponse) => ({
  access: response.access,
  refresh: response.refresh,
  user: loginUser(response.user),
});

export function sessionRoutes(deps: RouteDeps): RouteModule {
  const { auth, limiter, config } = deps;
  const router = Router();
  const options = { timeoutMs: GRPC_DEADLINE_MS };
  const sessionLimit = limiter.sessionLimit();
  const body = jsonBody(config.BODY_LIMIT);

  router.post(
    '/api/auth/signup',
    (_req, _res, next) => next(config.SIGNUP_ENABLED ? undefined : DomainError.notFound()),
    sessionLimit,
    body,
    async (req, res) => {
      const input = parseBody(signUpBody, req.body);
      const response = await auth.call('SignUp', input, requestIds(res), options);
      res.status(201).json(session(response));
    },
  );

  router.post('/api/auth/login', sessionLimit, body, async (req, res) => {
    const input = parseBody(logInBody, req.body);
    await limiter.loginEmailLimit(req, res, input.email);
    const response = await auth.call('LogIn', input, requestIds(res), options);
    res.status(200).json(session(response));
  });

  router.post('/api/auth/token/refresh', sessionLimit, body, async (req, res) => {
    const input = parseBody(refreshBody, req.body);
    const response = await auth.call('RefreshToken', input, requestIds(res), options);
    res.status(200).json({ access: response.access, refresh: response.refresh });
  });

  return { name: 'session', access: 'public', router, paths: sessionPaths() };
}

export function currentUserRoutes(deps: RouteDeps): RouteModule {
  const router = Router();
  router.get('/api/auth/me', async (_req, res) => {
    const user = await deps.auth.call('GetCurrentUser', {}, callerContext(res), { timeoutMs: GRPC_DEADLINE_MS });
    res.json(loginUser(user));
  });
  return { name: 'current-user', access: 'authenticated', router, paths: currentUserPaths() };
}

/** The OpenAPI part of {@link sessionRoutes}. */
export function sessionPaths(): OpenApiPaths {
  return {
    '/api/auth/signup/': {
      post: operation({
        operationId: 'signUp',
        summary: 'Create a workspace (starter plan) with its first user, and log in',
        description: 'Answers 404 when signup is turned off on this deployment (SIGNUP_ENABLED=false). Limited per client address.',
        tags: ['auth'],
        authenticated: false,
        requestBody: bodySchemaOf(signUpFields, 'create'),
        responses: { 201: { description: 'The workspace and user were created; a session for the user.', schema: ref('Session') } },
        errors: [404, 409],
      }),
    },
    '/api/auth/login/': {
      post: operation({
        operationId: 'logIn',
        summary: 'Exchange an email and password for an access token, a refresh token and the user',
        description:
          'A wrong password and an unknown email answer the same 401. Limited per client address, and per email from each client address.',
        tags: ['auth'],
        authenticated: false,
        requestBody: bodySchemaOf(logInFields, 'create'),
        responses: { 200: { description: 'Logged in.', schema: ref('Session') } },
        errors: [401],
      }),
    },
    '/api/auth/token/refresh/': {
      post: operation({
        operationId: 'refreshToken',
        summary: 'Exchange a refresh token for a new access token and a new refresh token',
        description:
          'Refresh tokens rotate: the one presented stops working and the response carries its successor. Presenting an already rotated token is treated as theft: 401, and every refresh token of that login is revoked. An expired refresh token answers 401; log in again.',
        tags: ['auth'],
        authenticated: false,
        requestBody: bodySchemaOf(refreshFields, 'create'),
        responses: { 200: { description: 'A new token pair.', schema: ref('TokenPair') } },
        errors: [401],
      }),
    },
  };
}

/** The OpenAPI part of {@link currentUserRoutes}. */
export function currentUserPaths(): OpenApiPaths {
  return {
    '/api/auth/me/': {
      get: operation({
        operationId: 'getCurrentUser',
        summary: "The caller's login user (for an API key, the workspace's system user)",
        tags: ['auth'],
        authenticated: true,
        responses: { 200: { description: 'The login user.', schema: ref('LoginUser') } },
      }),
    },
  };
}
