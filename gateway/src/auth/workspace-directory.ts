/**
 * Workspaces (plan, per-minute limit, system user) from auth's GetWorkspace, cached 30 s and
 * evicted when a `workspace_changed` event arrives (auth announces every plan change, so the very
 * next request after one is counted against the new limit). While auth is unreachable a recently known
 * workspace is served stale (up to 10 minutes) so a short auth outage does not stop the whole API.
 */
import { isDomainError } from '@crm/observability';
import type { authV1 } from '@crm/grpc';
import { GRPC_DEADLINE_MS, type AuthClient } from '../clients/auth-client';
import { ExpiringLru } from './expiring-lru';
import type { RequestIds } from '../request-context';

interface Entry {
  workspace: authV1.Workspace;
  freshUntil: number;
}

export interface WorkspaceDirectoryOptions {
  ttlMs?: number;
  staleMs?: number;
  cacheSize?: number;
  now?: () => number;
}

export class WorkspaceDirectory {
  private readonly cache: ExpiringLru<string, Entry>;
  private readonly inFlight = new Map<string, Promise<authV1.Workspace>>();
  private readonly ttlMs: number;
  private readonly staleMs: number;
  private readonly now: () => number;
  /** Bumped by every eviction: a fetch that began before one must not cache what it read. */
  private evictions = 0;

  constructor(
    private readonly auth: AuthClient,
    options: WorkspaceDirectoryOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.staleMs = options.staleMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
    this.cache = new ExpiringLru(options.cacheSize ?? 10_000, this.now);
  }

  async get(workspaceId: string, ids: RequestIds): Promise<authV1.Workspace> {
    const entry = this.cache.get(workspaceId);
    if (entry && entry.freshUntil > this.now()) return entry.workspace;
    let pending = this.inFlight.get(workspaceId);
    if (!pending) {
      const fetching: Promise<authV1.Workspace> = this.fetch(workspaceId, ids, entry).finally(() => {
        if (this.inFlight.get(workspaceId) === fetching) this.inFlight.delete(workspaceId);
      });
      pending = fetching;
      this.inFlight.set(workspaceId, pending);
    }
    return pending;
  }

  /** Seeds the cache from an answer that carried the workspace anyway (VerifyApiKey). */
  remember(workspace: authV1.Workspace): void {
    const now = this.now();
    this.cache.set(workspace.id, { workspace, freshUntil: now + this.ttlMs }, now + this.staleMs);
  }

  /** Called when this replica may have missed changes: every workspace is read again. */
  evictAll(): void {
    this.evictions += 1;
    this.cache.deleteWhere(() => true);
    this.inFlight.clear();
  }

  evict(workspaceId: string): void {
    this.evictions += 1;
    this.cache.delete(workspaceId);
    this.inFlight.delete(workspaceId);
  }

  private async fetch(workspaceId: string, ids: RequestIds, stale: Entry | undefined): Promise<authV1.Workspace> {
    const evictions = this.evictions;
    try {
      const workspace = await this.auth.call('GetWorkspace', { workspaceId }, { ...ids, workspaceId }, { timeoutMs: GRPC_DEADLINE_MS });
      if (evictions === this.evictions) this.remember(workspace);
      return workspace;
    } catch (error) {
      if (stale && isDomainError(error) && error.kind === 'unavailable') return stale.workspace;
      throw error;
    }
  }
}
