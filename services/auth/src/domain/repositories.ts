// What the domain needs from storage. The store/ folder implements these; tests may fake them.
import type { ApiKey, ApiKeyLookup, ApiKeyUsageDay, Plan, RefreshToken, SessionEnd, SigningKey, User, UserLogin, Workspace } from './model';

/** A page of people: the total is null on a cursor page, which counts nothing. */
export interface PeoplePage {
  total: number | null;
  users: User[];
  nextCursor: string | null;
}

export interface NewWorkspace {
  workspace: Workspace;
  systemUser: User;
  admin: User;
  adminLogin: UserLogin;
}

export interface WorkspaceRepository {
  /**
   * Writes the workspace, its two users and the admin's login so that either all become reachable or
   * none does; 'email_taken' when the login exists.
   */
  create(input: NewWorkspace): Promise<'created' | 'email_taken'>;
  get(id: string): Promise<Workspace | null>;
  /** Newest first. */
  list(): Promise<Workspace[]>;
  changePlan(id: string, plan: Plan, rateLimitPerMinute: number): Promise<Workspace | null>;
}

export interface UserRepository {
  findLogin(email: string): Promise<UserLogin | null>;
  /** The workspace's user with this (lower-cased) email, pending invitations included. */
  findByEmail(workspaceId: string, email: string): Promise<User | null>;
  get(workspaceId: string, id: string): Promise<User | null>;
  getMany(workspaceId: string, ids: string[]): Promise<User[]>;
  /**
   * Writes the user and, when given, their login together; 'email_taken' when the login exists or
   * the workspace has a user with the email (an invited user has no login until they accept).
   */
  insert(user: User, login?: UserLogin): Promise<'created' | 'email_taken'>;
  /** The workspace's people (never its system user), newest first; limit 0: all of them. */
  /** A page of the workspace's people (limit 0: all of them), by offset or after a cursor. */
  listPeople(workspaceId: string, paging: { offset: number; limit: number; cursor?: string }): Promise<PeoplePage>;
  /** Active admins of the workspace. */
  countActiveAdmins(workspaceId: string): Promise<number>;
  /** Sets and removes fields of a user; null when there is no such user. */
  update(workspaceId: string, id: string, change: UserChange): Promise<User | null>;
  /**
   * Sets the password, clears the invitation and writes the login (when given), together, only
   * while `tokenHash` is still the pending one (null otherwise); 'email_taken', writing nothing,
   * when the email already has a login.
   */
  acceptInvitation(
    workspaceId: string,
    id: string,
    tokenHash: string,
    passwordHash: string,
    login: UserLogin | null,
  ): Promise<User | null | 'email_taken'>;
}

export interface UserChange {
  set?: Partial<Omit<User, 'id' | 'workspaceId'>>;
  unset?: Array<'passwordHash' | 'deactivatedAt' | 'inviteTokenHash' | 'inviteExpiresAt'>;
}

export interface RefreshTokenRepository {
  get(id: string): Promise<RefreshToken | null>;
  insert(token: RefreshToken): Promise<void>;
  /**
   * Marks `usedId` used (only if it is not used yet) and inserts `next`, together.
   * False when the token was used meanwhile: someone else rotated it first.
   */
  rotate(usedId: string, usedAt: string, next: RefreshToken): Promise<boolean>;
  /** Revokes every live token of the family; returns how many. */
  revokeFamily(familyId: string, revokedAt: string): Promise<number>;
  /** Revokes every live token of the user, whatever the family; returns how many. */
  revokeUser(userId: string, revokedAt: string): Promise<number>;
}

export interface SessionEndRepository {
  /** The user's current session generation (0 when their sessions were never ended). */
  generation(workspaceId: string, userId: string): Promise<number>;
  /** Bumps the user's generation and stamps `endedAt`; returns the new generation. */
  end(workspaceId: string, userId: string, endedAt: string): Promise<number>;
  /** The workspace's users whose sessions ended after `since` (ISO). */
  endedSince(workspaceId: string, since: string): Promise<SessionEnd[]>;
}

export interface ApiKeyRepository {
  /** Writes the key and its lookup entry; the key verifies only once both exist. */
  create(key: ApiKey, lookup: ApiKeyLookup): Promise<void>;
  get(workspaceId: string, id: string): Promise<ApiKey | null>;
  /** Keys not revoked, newest first. */
  listActive(workspaceId: string): Promise<ApiKey[]>;
  /** False when there is no such key or it is already revoked. */
  revoke(workspaceId: string, id: string, revokedAt: string): Promise<boolean>;
  findByHash(hash: string): Promise<ApiKeyLookup | null>;
  findByKeyId(keyId: string): Promise<ApiKeyLookup | null>;
  addUsage(workspaceId: string, keyId: string, day: string, count: number): Promise<void>;
  /** Sets lastUsedAt only when it moves forward. */
  touchLastUsed(workspaceId: string, keyId: string, at: string): Promise<void>;
  /** Per-day counts from `sinceDay` on, newest first. */
  usageSince(workspaceId: string, keyId: string, sinceDay: string): Promise<ApiKeyUsageDay[]>;
}

export interface SigningKeyRepository {
  get(id: string): Promise<SigningKey | null>;
  /** Inserts the key as the current one unless there is one; returns whichever is stored. */
  insertOrGet(key: SigningKey): Promise<SigningKey>;
  /** Makes `to` current and `from` previous, together; false when `from` is no longer current. */
  rotate(from: SigningKey, to: SigningKey): Promise<boolean>;
}

export interface AuthRepositories {
  workspaces: WorkspaceRepository;
  users: UserRepository;
  refreshTokens: RefreshTokenRepository;
  sessionEnds: SessionEndRepository;
  apiKeys: ApiKeyRepository;
  signingKeys: SigningKeyRepository;
}
