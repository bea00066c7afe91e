import type { authV1 } from '@crm/grpc';
import type { AuthServices } from '../application/auth-services';
import type { Workspace } from '../domain/model';
import { callerOf, isoSeconds, toApiKey, toUser, toWorkspace, type HandlersOf } from './proto-mapping';

type AuthHandlers = HandlersOf<authV1.AuthServiceMethods>;

/** auth.v1.AuthService: proto in, domain call, proto out. */
export function authHandlers(services: AuthServices): AuthHandlers {
  return { ...sessionHandlers(services), ...apiKeyHandlers(services), ...memberHandlers(services) };
}

/** A workspace as callers see it, with the sessions ended lately (so gateways drop their tokens). */
async function withEndedSessions(sessionEndings: AuthServices['sessionEndings'], workspace: Workspace) {
  return toWorkspace(workspace, await sessionEndings.endedRecently(workspace.id));
}

/** Sign-up, log-in, tokens and the current user. */
function sessionHandlers({
  sessions,
  sessionEndings,
  accessTokens,
}: AuthServices): Pick<
  AuthHandlers,
  'SignUp' | 'LogIn' | 'RefreshToken' | 'LogOut' | 'GetSigningKeys' | 'GetCurrentUser' | 'GetUsers' | 'EndSessions'
> {
  return {
    SignUp: async (request) => {
      const session = await sessions.signUp(request);
      return { access: session.access, refresh: session.refresh, user: toUser(session.user) };
    },
    LogIn: async (request) => {
      const session = await sessions.logIn(request.email, request.password);
      return { access: session.access, refresh: session.refresh, user: toUser(session.user) };
    },
    RefreshToken: async (request) => sessions.refresh(request.refresh),
    LogOut: async (request) => {
      await sessionEndings.logOut(request.refresh);
      return {};
    },
    GetSigningKeys: async () => accessTokens.published(),
    GetCurrentUser: async (_request, context) => toUser(await sessions.currentUser(callerOf(context))),
    GetUsers: async (request, context) => ({ users: (await sessions.usersById(callerOf(context), request.ids)).map(toUser) }),
    EndSessions: async (request, context) => {
      const caller = callerOf(context);
      await (request.userId ? sessionEndings.endFor(caller, request.userId) : sessionEndings.endOwn(caller));
      return {};
    },
  };
}

/** API keys: their lifecycle, their verification (with the workspace) and their usage. */
function apiKeyHandlers({
  apiKeys,
  workspaces,
  sessionEndings,
}: AuthServices): Pick<
  AuthHandlers,
  'CreateApiKey' | 'ListApiKeys' | 'RevokeApiKey' | 'GetApiKeyUsage' | 'RecordApiKeyUsage' | 'VerifyApiKey' | 'GetWorkspace'
> {
  return {
    CreateApiKey: async (request, context) => {
      const { apiKey, key } = await apiKeys.create(callerOf(context), request.name, {
        scopes: request.scopes,
        expiresAt: request.expiresAt || undefined,
      });
      return { apiKey: toApiKey(apiKey), key };
    },
    ListApiKeys: async (_request, context) => ({ apiKeys: (await apiKeys.list(callerOf(context))).map(toApiKey) }),
    RevokeApiKey: async (request, context) => {
      await apiKeys.revoke(callerOf(context), request.id);
      return {};
    },
    GetApiKeyUsage: async (request, context) => {
      const usage = await apiKeys.usage(callerOf(context), request.id);
      return { id: usage.id, days: usage.days, total: usage.total, lastUsedAt: isoSeconds(usage.lastUsedAt) };
    },
    RecordApiKeyUsage: async (request) => {
      await apiKeys.recordUsage(
        request.entries.map((e) => ({ keyId: e.keyId, day: e.day, count: e.count, lastUsedAt: e.lastUsedAt || undefined })),
      );
      return {};
    },
    VerifyApiKey: async (request) => {
      const { keyId, workspace, scopes, expiresAt } = await apiKeys.verify(request.key);
      return {
        keyId,
        workspace: await withEndedSessions(sessionEndings, workspace),
        scopes: [...scopes],
        expiresAt: isoSeconds(expiresAt),
      };
    },
    GetWorkspace: async (request) => withEndedSessions(sessionEndings, await workspaces.get(request.workspaceId)),
  };
}

/** A workspace's members: invitations, roles, the member list. */
function memberHandlers({
  sessions,
  members,
}: AuthServices): Pick<AuthHandlers, 'AcceptInvitation' | 'ListUsers' | 'InviteUser' | 'UpdateUser'> {
  return {
    AcceptInvitation: async (request) => {
      const session = await sessions.open(await members.acceptInvitation(request.token, request.password));
      return { access: session.access, refresh: session.refresh, user: toUser(session.user) };
    },
    ListUsers: async (request, context) => {
      const page = await members.list(callerOf(context), request.offset, request.limit, request.cursor || undefined);
      return { total: page.total ?? 0, users: page.users.map(toUser), nextCursor: page.nextCursor ?? '' };
    },
    InviteUser: async (request, context) => {
      const { user, token } = await members.invite(callerOf(context), request);
      return { user: toUser(user), inviteToken: token };
    },
    UpdateUser: async (request, context) =>
      toUser(await members.update(callerOf(context), request.id, { role: request.role, isActive: request.isActive })),
  };
}
