import { DomainError } from '@crm/observability';
import { requireAdmin, requireWorkspace, type Caller } from '../domain/caller';
import type { Clock } from '@crm/vocabulary';
import type { SessionEnd } from '../domain/model';
import type { RefreshTokenService } from './refresh-tokens';
import type { SessionEndRepository, UserRepository } from '../domain/repositories';
import type { WorkspaceChanges } from '../domain/workspace-changes';

/** Ends published to gateways stay this long past an access token's lifetime (clock skew between machines). */
const SKEW_MS = 60_000;

/**
 * Logout, logout everywhere, and an admin ending a user's sessions. Ending every session of a user
 * revokes their refresh tokens, then bumps their session generation and announces the workspace
 * as changed, so every gateway re-reads it and refuses access tokens of an older generation.
 */
export class SessionEndings {
  constructor(
    private readonly users: UserRepository,
    private readonly refreshTokens: RefreshTokenService,
    private readonly ends: SessionEndRepository,
    private readonly changes: WorkspaceChanges,
    private readonly now: Clock,
    private readonly accessTokenTtlSeconds: number,
  ) {}

  /** One session: its refresh tokens stop working; its access token lives out its lifetime. */
  logOut(refresh: string): Promise<void> {
    return this.refreshTokens.revokeSession(refresh ?? '');
  }

  /** Every session of the caller (a user; an API key has no sessions to end). */
  async endOwn(caller: Caller): Promise<void> {
    const workspaceId = requireWorkspace(caller);
    if (caller.actorKind !== 'user') throw new DomainError('permission_denied', 'Only a logged-in user can end their sessions.');
    await this.endEverySession(workspaceId, caller.actorId);
  }

  /** Every session of a user of the admin's workspace. */
  async endFor(caller: Caller, userId: string): Promise<void> {
    const workspaceId = await requireAdmin(this.users, caller, "end other users' sessions");
    const user = userId ? await this.users.get(workspaceId, userId) : null;
    if (!user || user.role === 'system') throw DomainError.notFound();
    await this.endEverySession(workspaceId, user.id);
  }

  /** The workspace's users whose sessions ended recently enough that some access token of theirs may still be unexpired. */
  endedRecently(workspaceId: string): Promise<SessionEnd[]> {
    const since = new Date(this.now().getTime() - this.accessTokenTtlSeconds * 1000 - SKEW_MS);
    return this.ends.endedSince(workspaceId, since.toISOString());
  }

  /** No check of who asks: for the callers above, and for deactivating a user. */
  async endEverySession(workspaceId: string, userId: string): Promise<void> {
    await this.refreshTokens.revokeUser(userId);
    await this.ends.end(workspaceId, userId, this.now().toISOString());
    await this.changes.changed(workspaceId);
  }
}
