// Domain records → proto messages. Timestamps leave as `YYYY-MM-DDThh:mm:ssZ`, empty when unset.
import { apiTimestamp } from '@crm/vocabulary';
import type { authV1, CallContext } from '@crm/grpc';
import { scopesOf } from '../application/api-key-service';
import type { Caller } from '../domain/caller';
import { isActive, isInvitePending, type ApiKey, type SessionEnd, type User, type Workspace } from '../domain/model';

/** Method name → typed handler, from a generated `*Methods` interface (its index signature left out). */
export type HandlersOf<M> = {
  [K in keyof M as string extends K ? never : K]: M[K] extends { request: infer Req; response: infer Res }
    ? (request: Req, context: CallContext) => Promise<Res>
    : never;
};

export function isoSeconds(value: string | undefined): string {
  if (!value) return '';
  return apiTimestamp(value);
}

/** Proto3 scalars cannot be absent: 0 and '' mean "not given". */
export function optionalNumber(value: number | undefined): number | undefined {
  return value ? value : undefined;
}

export function toUser(user: User): authV1.User {
  return {
    id: user.id,
    email: user.email,
    firstName: user.firstName,
    lastName: user.lastName,
    workspaceId: user.workspaceId,
    role: user.role,
    isActive: isActive(user),
    invitePending: isInvitePending(user),
    createdAt: isoSeconds(user.createdAt),
  };
}

/** `ended`: only in the answers the gateway authenticates with (GetWorkspace, VerifyApiKey). */
export function toWorkspace(workspace: Workspace, ended: SessionEnd[] = []): authV1.Workspace {
  return {
    endedSessions: ended.map((end) => ({ userId: end.id, generation: end.generation })),
    id: workspace.id,
    name: workspace.name,
    plan: workspace.plan,
    rateLimitPerMinute: workspace.rateLimitPerMinute,
    systemUserId: workspace.systemUserId,
    createdAt: isoSeconds(workspace.createdAt),
  };
}

export function toApiKey(apiKey: ApiKey): authV1.ApiKey {
  return {
    id: apiKey.id,
    name: apiKey.name,
    prefix: apiKey.prefix,
    createdAt: isoSeconds(apiKey.createdAt),
    lastUsedAt: isoSeconds(apiKey.lastUsedAt),
    revokedAt: isoSeconds(apiKey.revokedAt),
    scopes: [...scopesOf(apiKey)],
    expiresAt: isoSeconds(apiKey.expiresAt),
  };
}

/** The caller as the gateway described it. `operator` is never accepted from metadata here. */
export function callerOf(context: CallContext): Caller {
  return {
    workspaceId: context.workspaceId,
    actorId: context.actorId,
    actorKind: context.actorKind === 'operator' ? 'system' : context.actorKind,
  };
}
