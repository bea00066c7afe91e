/**
 * Checks workspace API keys with auth (VerifyApiKey) and caches the answer for a minute, or until
 * the key expires if that comes first. A
 * revocation pushed over the invalidation channel evicts the key at once, and the key id is
 * remembered for the cache lifetime so a verification that raced the revocation cannot re-cache it.
 */
import { createHash } from 'node:crypto';
import { DomainError, isDomainError } from '@crm/observability';
import type { authV1 } from '@crm/grpc';
import { API_KEY_SCOPES } from '@crm/vocabulary';
import { GRPC_DEADLINE_MS, type AuthClient } from '../clients/auth-client';
import { credentialError } from './credential-error';
import { ExpiringLru } from './expiring-lru';
import type { RequestIds } from '../request-context';

export const API_KEY_PREFIX = 'crm_';

export interface VerifiedApiKey {
  keyId: string;
  workspace: authV1.Workspace;
  scopes: readonly string[];
  /** Epoch ms at which the key stops working; absent: never. */
  expiresAt?: number;
}

export interface ApiKeyVerifierOptions {
  ttlMs?: number;
  cacheSize?: number;
  now?: () => number;
}

export class ApiKeyVerifier {
  // Keyed by a hash of the key, so the cache never holds usable secrets.
  private readonly cache: ExpiringLru<string, VerifiedApiKey>;
  private readonly recentlyRevoked: ExpiringLru<string, true>;
  private readonly inFlight = new Map<string, Promise<VerifiedApiKey>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly auth: AuthClient,
    options: ApiKeyVerifierOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.cache = new ExpiringLru(options.cacheSize ?? 10_000, this.now);
    this.recentlyRevoked = new ExpiringLru(100_000, this.now);
  }

  async verify(key: string, ids: RequestIds): Promise<VerifiedApiKey> {
    const digest = createHash('sha256').update(key).digest('hex');
    const cached = this.cache.get(digest);
    if (cached) return cached;
    let pending = this.inFlight.get(digest);
    if (!pending) {
      pending = this.lookUp(key, digest, ids).finally(() => this.inFlight.delete(digest));
      this.inFlight.set(digest, pending);
    }
    return pending;
  }

  /** Called when any replica revoked the key: it stops working here at once. */
  revoke(keyId: string): void {
    this.recentlyRevoked.set(keyId, true, this.now() + this.ttlMs + 5_000);
    this.cache.deleteWhere((entry) => entry.keyId === keyId);
  }

  /** Called when this replica may have missed revocations: every key is verified again. */
  forgetAll(): void {
    this.cache.deleteWhere(() => true);
    this.inFlight.clear();
  }

  /** Called when a workspace's plan changed: its keys are verified again, which brings the new plan. */
  forgetWorkspace(workspaceId: string): void {
    this.cache.deleteWhere((entry) => entry.workspace.id === workspaceId);
  }

  private async lookUp(key: string, digest: string, ids: RequestIds): Promise<VerifiedApiKey> {
    let response: authV1.VerifyApiKeyResponse;
    try {
      response = await this.auth.call('VerifyApiKey', { key }, ids, { timeoutMs: GRPC_DEADLINE_MS });
    } catch (error) {
      if (isDomainError(error) && (error.kind === 'unauthenticated' || error.kind === 'not_found' || error.kind === 'permission_denied')) {
        throw credentialError('Invalid API key.', 'invalid_token');
      }
      throw error;
    }
    if (!response.keyId || !response.workspace) throw new DomainError('internal', 'VerifyApiKey answered without a key id or workspace.');
    if (this.recentlyRevoked.has(response.keyId)) throw credentialError('Invalid API key.', 'invalid_token');
    const expiresAt = response.expiresAt ? Date.parse(response.expiresAt) : undefined;
    // Auth refuses an expired key; this is for a clock here a little ahead of auth's.
    if (expiresAt !== undefined && expiresAt <= this.now()) throw credentialError('Invalid API key.', 'invalid_token');
    const verified: VerifiedApiKey = {
      keyId: response.keyId,
      workspace: response.workspace,
      // Auth answers every scope for a key made without any, never none: an empty list is an auth from
      // before scopes (a rolling upgrade), whose keys all hold every scope.
      scopes: response.scopes.length > 0 ? response.scopes : API_KEY_SCOPES,
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    };
    // Never served from the cache past the key's expiry.
    this.cache.set(digest, verified, Math.min(this.now() + this.ttlMs, expiresAt ?? Infinity));
    return verified;
  }
}
