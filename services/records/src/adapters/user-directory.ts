/**
 * Users' names and workspace membership, from the auth service's GetUsers: one call per page of
 * records (the ids batched), answers cached for a minute. When auth cannot be reached, names come
 * back empty rather than failing the read.
 */
import { authV1, GrpcClient, type InternalTls } from '@crm/grpc';
import { DomainError, type Logger } from '@crm/observability';

export interface DirectoryUser {
  id: string;
  name: string;
}

export interface UserDirectory {
  /**
   * The users of `workspaceId` among `ids`; unknown ids (and other workspaces' users) are left
   * out. Null when the directory cannot be asked right now.
   */
  lookup(workspaceId: string, ids: string[]): Promise<Map<string, DirectoryUser> | null>;
  close(): void;
}

/** How often, and after what pauses, a write asks again before it gives up on checking its owners. */
const MEMBER_CHECK_PAUSES_MS = [200, 500, 1000];

/**
 * The users of `workspaceId` among `ids`, for a write that names them (an owner, an assignee):
 * an id is never accepted unchecked. While the directory cannot answer it is asked again a few
 * times, and then the write is refused as unavailable (503), so nothing is saved.
 */
export async function workspaceMembers(directory: UserDirectory, workspaceId: string, ids: string[]): Promise<Map<string, DirectoryUser>> {
  for (let attempt = 0; ; attempt += 1) {
    const found = await directory.lookup(workspaceId, ids);
    if (found) return found;
    const pause = MEMBER_CHECK_PAUSES_MS[attempt];
    if (pause === undefined)
      throw new DomainError(
        'unavailable',
        'The users this change names cannot be checked right now (auth is unreachable); nothing was saved. Try again shortly.',
      );
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

interface CacheEntry {
  user: DirectoryUser | null;
  expiresAt: number;
}

export class AuthUserDirectory implements UserDirectory {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly client: GrpcClient<authV1.AuthServiceMethods>;

  constructor(
    address: string,
    tls: InternalTls | null,
    private readonly logger: Logger,
    private readonly ttlMs = 60_000,
    private readonly timeoutMs = 2_000,
  ) {
    this.client = new GrpcClient<authV1.AuthServiceMethods>(authV1.protoPath, authV1.AuthServiceName, address, tls);
  }

  async lookup(workspaceId: string, ids: string[]): Promise<Map<string, DirectoryUser> | null> {
    const now = Date.now();
    const out = new Map<string, DirectoryUser>();
    const missing: string[] = [];
    for (const id of new Set(ids.filter((id) => id))) {
      const entry = this.cache.get(`${workspaceId}/${id}`);
      if (entry && entry.expiresAt > now) {
        if (entry.user) out.set(id, entry.user);
      } else missing.push(id);
    }
    if (missing.length === 0) return out;
    try {
      const response = await this.client.call(
        'GetUsers',
        { ids: missing },
        { workspaceId, actorId: 'records', actorKind: 'system' },
        { timeoutMs: this.timeoutMs },
      );
      const found = new Map<string, DirectoryUser>();
      for (const user of response.users) {
        if (user.workspaceId && user.workspaceId !== workspaceId) continue;
        const name = [user.firstName, user.lastName].filter((p) => p).join(' ') || user.email;
        found.set(user.id, { id: user.id, name });
      }
      if (this.cache.size > 50_000) this.cache.clear();
      for (const id of missing) {
        const user = found.get(id) ?? null;
        this.cache.set(`${workspaceId}/${id}`, { user, expiresAt: now + this.ttlMs });
        if (user) out.set(id, user);
      }
      return out;
    } catch (error) {
      this.logger.warn({ err: error }, 'auth GetUsers failed; user names left empty');
      return null;
    }
  }

  close(): void {
    this.client.close();
  }
}

/** A fixed directory, for tests and for running without auth. */
export class StaticUserDirectory implements UserDirectory {
  constructor(private readonly users: Record<string, { workspaceId: string; name: string }> | null) {}

  async lookup(workspaceId: string, ids: string[]): Promise<Map<string, DirectoryUser> | null> {
    if (this.users === null) return null;
    const out = new Map<string, DirectoryUser>();
    for (const id of ids) {
      const user = this.users[id];
      if (user && user.workspaceId === workspaceId) out.set(id, { id, name: user.name });
    }
    return out;
  }

  close(): void {}
}
