/**
 * The people of a workspace (settings): list (anyone), invite, change role, deactivate (admins:
 * auth/admin-guard.ts guards every settings write); and accepting an invitation (public).
 */
import { Router } from 'express';
import { z } from 'zod';
import { DomainError } from '@crm/observability';
import type { authV1 } from '@crm/grpc';
import { ACCOUNT_LIMITS, FIELD_LIMITS } from '@crm/vocabulary';
import { GRPC_DEADLINE_MS } from '../clients/auth-client';
import { oneTimeSecret } from '../idempotency/idempotent-posts';
import { jsonBody } from '../middleware/json-body';
import { idParameter, operation, ref, type OpenApiPaths } from '../openapi/operation';
import { callerContext, callerOf, requestIds } from '../request-context';
import { loginUser } from './auth.routes';
import { paginated, readListQuery } from './records/list-query';
import { listParameters } from './records/record-routes';
import { pageSchema } from './records/record-shape';
import type { RouteDeps, RouteModule } from './route-module';
import {
  answerSchema,
  bodyCheck,
  bodySchemaOf,
  emailField,
  partialTable,
  readOnlyFields,
  renderAnswer,
  textField,
  tokenField,
  withoutReadOnly,
  type AnswerTable,
  type BodyField,
  type BodyTable,
} from './field-table';
import { parseBody, pathId } from './validate';

const ROLES = ['admin', 'member'] as const;
const roleField = { check: z.enum(ROLES), rules: { type: 'string', enum: [...ROLES] }, required: true } satisfies BodyField;
const nameField = textField({ max: ACCOUNT_LIMITS.personName, trim: true, notBlank: true }, { required: true });

const inviteUserFields = {
  email: emailField(FIELD_LIMITS.email),
  firstName: nameField,
  lastName: nameField,
  role: roleField,
} satisfies BodyTable;

export const inviteUserBody = bodyCheck(inviteUserFields);

/** `role` and `isActive` change. */
const updateUserFields = partialTable({
  role: roleField,
  isActive: { check: z.boolean(), rules: { type: 'boolean' } },
});

export const updateUserBody = bodyCheck(updateUserFields);

const acceptInvitationFields = {
  token: tokenField(512),
  password: textField({ max: ACCOUNT_LIMITS.passwordMax, min: ACCOUNT_LIMITS.passwordMin }, { required: true }),
} satisfies BodyTable;

export const acceptInvitationBody = bodyCheck(acceptInvitationFields);

const memberAnswer: AnswerTable<authV1.User> = {
  id: { schema: { type: 'string', examples: ['usr_01J...'] }, value: (u) => u.id },
  email: { schema: { type: 'string', format: 'email' }, value: (u) => u.email },
  firstName: { schema: { type: 'string' }, value: (u) => u.firstName },
  lastName: { schema: { type: 'string' }, value: (u) => u.lastName },
  role: { schema: { type: 'string', enum: [...ROLES] }, value: (u) => u.role },
  isActive: { schema: { type: 'boolean', description: 'False once deactivated: the user cannot log in.' }, value: (u) => u.isActive },
  invitePending: {
    schema: { type: 'boolean', description: 'True until the invited user accepted the invitation.' },
    value: (u) => u.invitePending,
  },
  createdAt: { schema: { type: 'string', format: 'date-time' }, value: (u) => u.createdAt },
};

/** The answer to an invitation: the user and the token they set their password with, shown only there. */
const invitedAnswer: AnswerTable<authV1.User & { inviteToken: string }> = {
  ...memberAnswer,
  inviteToken: {
    schema: {
      type: 'string',
      description:
        'The one-time token the person sets their password with (POST /api/auth/invitations/accept/); shown only here, valid 7 days.',
    },
    value: (invited) => invited.inviteToken,
  },
};

/** The representation's fields other than `role` and `isActive`, which may be sent back and are ignored. */
const READ_ONLY_USER_FIELDS = readOnlyFields(memberAnswer, updateUserFields);

function member(user: authV1.User | null | undefined): authV1.User {
  if (!user) throw new DomainError('internal', 'Auth answered without a user.');
  return user;
}

export const memberJson = (user: authV1.User | null | undefined) => renderAnswer(memberAnswer, member(user));

export function memberRoutes(deps: RouteDeps): RouteModule {
  const { auth, authenticator, config } = deps;
  const options = { timeoutMs: GRPC_DEADLINE_MS };
  const router = Router();

  router.get('/api/settings/users', async (req, res) => {
    const list = readListQuery(req, [], { cursor: true });
    const page = await auth.call(
      'ListUsers',
      { offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      callerContext(res),
      options,
    );
    res.json(paginated(req, config, list, page.total, page.users.map(memberJson), page.nextCursor));
  });

  router.post('/api/settings/users', oneTimeSecret, async (req, res) => {
    const input = parseBody(inviteUserBody, req.body);
    const invited = await auth.call('InviteUser', input, callerContext(res), options);
    res.status(201).json(renderAnswer(invitedAnswer, { ...member(invited.user), inviteToken: invited.inviteToken }));
  });

  router.patch('/api/settings/users/:id', async (req, res) => {
    const id = pathId(req.params.id);
    const change = parseBody(updateUserBody, withoutReadOnly(req.body, READ_ONLY_USER_FIELDS));
    const user = await auth.call('UpdateUser', { id, ...change }, callerContext(res), options);
    // A deactivation ended the user's sessions: auth announces it to every replica; this one re-reads at once.
    if (change.isActive === false) authenticator.workspaces.evict(callerOf(res).workspaceId);
    res.json(memberJson(user));
  });

  return { name: 'users', access: 'authenticated', router, paths: memberPaths() };
}

export function invitationRoutes(deps: RouteDeps): RouteModule {
  const { auth, limiter, config } = deps;
  const router = Router();
  router.post('/api/auth/invitations/accept', limiter.sessionLimit(), jsonBody(config.BODY_LIMIT), async (req, res) => {
    const input = parseBody(acceptInvitationBody, req.body);
    const session = await auth.call('AcceptInvitation', input, requestIds(res), { timeoutMs: GRPC_DEADLINE_MS });
    res.status(200).json({ access: session.access, refresh: session.refresh, user: loginUser(session.user) });
  });
  return { name: 'invitations', access: 'public', router, paths: invitationPaths() };
}

const memberSchema = answerSchema(memberAnswer);
/** The OpenAPI part of {@link memberRoutes}. */
export function memberPaths(): OpenApiPaths {
  return {
    '/api/settings/users/': {
      get: operation({
        operationId: 'listUsers',
        summary: "List the workspace's people with their role and state (any caller)",
        description: 'Newest first; invited people who have not accepted yet are listed with `invitePending: true`.',
        tags: ['users'],
        authenticated: true,
        parameters: listParameters([], { cursor: true }),
        responses: {
          200: {
            description: 'One page of users.',
            schema: pageSchema(memberSchema, 'One page of users, newest first.', { cursor: true }),
          },
        },
        errors: [400],
      }),
      post: operation({
        operationId: 'inviteUser',
        summary: 'Invite a person to the workspace (admins)',
        description:
          'Creates the user with `invitePending: true` and answers a one-time `inviteToken` (valid 7 days, stored hashed) to hand to the person, who sets their password with it. Inviting the email of a pending invitation again answers 201 with a new token, and the old token stops working. The email of an existing user of this workspace (active or deactivated) answers 422 on `email`; an address with an account in another workspace is invited like any other (nothing is written outside the workspace until the invitation is accepted). Members and API keys answer 403.',
        tags: ['users'],
        authenticated: true,
        requestBody: bodySchemaOf(inviteUserFields, 'create'),
        responses: { 201: { description: 'The invited user and their token, shown once.', schema: answerSchema(invitedAnswer) } },
        errors: [403],
      }),
    },
    '/api/settings/users/{id}/': {
      patch: operation({
        operationId: 'updateUser',
        summary: "Change a user's role or deactivate / reactivate them (admins)",
        description:
          "Deactivating (`isActive: false`) ends every session of the user at once: their access tokens answer 401 on the next request through any gateway, and logging in answers 401 like a wrong password. The last active admin cannot be demoted (422 on `role`) or deactivated (422 on `isActive`). Other fields of the user's representation may be sent back and are ignored. Members and API keys answer 403; a user of another workspace 404.",
        tags: ['users'],
        authenticated: true,
        parameters: [idParameter('The user.')],
        requestBody: bodySchemaOf(updateUserFields, 'update', { readOnly: READ_ONLY_USER_FIELDS }),
        responses: { 200: { description: 'The user as changed.', schema: memberSchema } },
        errors: [403, 404],
      }),
    },
  };
}

/** The OpenAPI part of {@link invitationRoutes}. */
export function invitationPaths(): OpenApiPaths {
  return {
    '/api/auth/invitations/accept/': {
      post: operation({
        operationId: 'acceptInvitation',
        summary: 'Set the password of an invited user from their invitation token, and log in',
        description:
          'Answers like login; the email becomes a login of this workspace now. A used, replaced, expired or unknown token answers 400, and so does an email that already has a login in another workspace (an address signs in to one workspace). Limited per client address.',
        tags: ['auth'],
        authenticated: false,
        requestBody: bodySchemaOf(acceptInvitationFields, 'create'),
        responses: { 200: { description: 'The invitation is accepted; a session for the user.', schema: ref('Session') } },
        errors: [400],
      }),
    },
  };
}
