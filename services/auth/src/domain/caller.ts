import { DomainError } from '@crm/observability';
import type { User } from './model';
import type { UserRepository } from './repositories';

/**
 * Who asks, as the handlers hand it over. `operator` is only ever set by the operator handlers
 * after they checked the operator token, never taken from a caller's metadata.
 */
export interface Caller {
  workspaceId: string;
  actorId: string;
  actorKind: 'user' | 'api_key' | 'system' | 'operator';
}

export function operatorCaller(workspaceId: string): Caller {
  return { workspaceId, actorId: 'operator', actorKind: 'operator' };
}

export function requireWorkspace(caller: Caller): string {
  if (!caller.workspaceId) throw DomainError.unauthenticated('No caller workspace.');
  return caller.workspaceId;
}

/** The user behind a user (or API-key: its system user) caller. */
export async function callerUser(users: UserRepository, caller: Caller): Promise<User> {
  const workspaceId = requireWorkspace(caller);
  if (!caller.actorId) throw DomainError.unauthenticated('No caller.');
  const user = await users.get(workspaceId, caller.actorId);
  if (!user) throw DomainError.unauthenticated('The caller no longer exists.');
  return user;
}

/** Changing workspace settings (users, API keys, other users' sessions) is for the workspace's admins and the operator only. */
export async function requireAdmin(users: UserRepository, caller: Caller, what = 'manage API keys'): Promise<string> {
  const workspaceId = requireWorkspace(caller);
  if (caller.actorKind === 'operator') return workspaceId;
  if (caller.actorKind === 'user') {
    const user = await callerUser(users, caller);
    if (user.role === 'admin') return workspaceId;
  }
  throw new DomainError('permission_denied', `Only workspace admins can ${what}.`);
}
