import { createHash, randomBytes } from 'node:crypto';
import { DomainError } from '@crm/observability';
import { ACCOUNT_LIMITS, API_KEY_SCOPES, isApiKeyScope, type ApiKeyScope } from '@crm/vocabulary';
import { requireAdmin, requireWorkspace, type Caller } from '../domain/caller';
import { DAY_MS, dayOf } from '../domain/clock';
import { type Clock } from '@crm/vocabulary';
import { newId, randomBase62 } from '../domain/ids';
import type { ApiKey, Workspace } from '../domain/model';
import type { ApiKeyRepository, UserRepository, WorkspaceRepository } from '../domain/repositories';
import { FieldCheck } from '../domain/validation';

/** `crm_<8 char prefix>_<43 char base64url secret>`; the prefix is shown in lists to tell keys apart. */
const KEY_SHAPE = /^crm_[0-9A-Za-z]{8}_[A-Za-z0-9_-]{43}$/;
const INVALID_KEY = 'Invalid or revoked API key.';
export const USAGE_DAYS = 90;

/** Keys are 256-bit random secrets, so a fast hash is enough: there is nothing to brute-force. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What a key may do and until when; both optional (every scope, never expires). */
export interface ApiKeyLimits {
  scopes?: string[];
  expiresAt?: string;
}

/** The scopes a key holds: its own, or every scope when it was created without any. */
export function scopesOf(apiKey: ApiKey): readonly ApiKeyScope[] {
  return apiKey.scopes ?? API_KEY_SCOPES;
}

export interface UsageEntry {
  keyId: string;
  day: string;
  count: number;
  lastUsedAt?: string;
}

export interface ApiKeyUsage {
  id: string;
  days: { date: string; count: number }[];
  total: number;
  lastUsedAt?: string;
}

function isExpired(apiKey: ApiKey, now: Date): boolean {
  return apiKey.expiresAt !== undefined && Date.parse(apiKey.expiresAt) <= now.getTime();
}

/** Workspace API keys: create (shown once), list, revoke, verify, usage. */
export class ApiKeyService {
  constructor(
    private readonly apiKeys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly workspaces: WorkspaceRepository,
    private readonly now: Clock,
  ) {}

  async create(caller: Caller, name: string, limits: ApiKeyLimits = {}): Promise<{ apiKey: ApiKey; key: string }> {
    const workspaceId = await requireAdmin(this.users, caller);
    const check = new FieldCheck();
    const cleanName = check.text('name', name, ACCOUNT_LIMITS.apiKeyName);
    const scopes = this.checkScopes(check, limits.scopes);
    const expiresAt = this.checkExpiry(check, limits.expiresAt);
    check.throwIfAny();
    if (caller.actorKind === 'operator' && !(await this.workspaces.get(workspaceId))) throw DomainError.notFound();

    const prefix = `crm_${randomBase62(8)}`;
    const key = `${prefix}_${randomBytes(32).toString('base64url')}`;
    const apiKey: ApiKey = {
      id: newId('key_'),
      workspaceId,
      name: cleanName!,
      prefix,
      createdAt: this.now().toISOString(),
      ...(scopes ? { scopes } : {}),
      ...(expiresAt ? { expiresAt } : {}),
    };
    await this.apiKeys.create(apiKey, { id: hashApiKey(key), keyId: apiKey.id, workspaceId });
    return { apiKey, key };
  }

  /** Known scopes, each once, in the vocabulary's order; none given (empty over gRPC): every scope, stored as absent. */
  private checkScopes(check: FieldCheck, scopes: string[] | undefined): ApiKeyScope[] | undefined {
    if (!scopes || scopes.length === 0) return undefined;
    const unknown = scopes.filter((scope) => !isApiKeyScope(scope));
    if (unknown.length > 0)
      return void check.add('scopes', `Unknown scope: ${unknown.join(', ')}. Known scopes: ${API_KEY_SCOPES.join(', ')}.`);
    return API_KEY_SCOPES.filter((scope) => scopes.includes(scope));
  }

  private checkExpiry(check: FieldCheck, expiresAt: string | undefined): string | undefined {
    if (!expiresAt) return undefined;
    const at = Date.parse(expiresAt);
    if (Number.isNaN(at)) return void check.add('expiresAt', 'Enter a valid ISO 8601 timestamp.');
    if (at <= this.now().getTime()) return void check.add('expiresAt', 'Ensure this timestamp is in the future.');
    return new Date(at).toISOString();
  }

  /** Any caller of the workspace reads its keys (never their values); only admins change them. */
  async list(caller: Caller): Promise<ApiKey[]> {
    const workspaceId = requireWorkspace(caller);
    return this.apiKeys.listActive(workspaceId);
  }

  /** Another workspace's key, an unknown id and a key already revoked all read as not found. */
  async revoke(caller: Caller, id: string): Promise<void> {
    const workspaceId = await requireAdmin(this.users, caller);
    if (!id || !(await this.apiKeys.revoke(workspaceId, id, this.now().toISOString()))) throw DomainError.notFound();
  }

  async usage(caller: Caller, id: string): Promise<ApiKeyUsage> {
    const workspaceId = requireWorkspace(caller);
    const apiKey = id ? await this.apiKeys.get(workspaceId, id) : null;
    if (!apiKey) throw DomainError.notFound();
    const since = dayOf(new Date(this.now().getTime() - (USAGE_DAYS - 1) * DAY_MS));
    const days = (await this.apiKeys.usageSince(workspaceId, id, since)).map((d) => ({ date: d.day, count: d.count }));
    return { id, days, total: days.reduce((sum, d) => sum + d.count, 0), lastUsedAt: apiKey.lastUsedAt };
  }

  /** For the gateway: the key's id, workspace, scopes and expiry, or unauthenticated for anything else (expired included). */
  async verify(key: string): Promise<{ keyId: string; workspace: Workspace; scopes: readonly ApiKeyScope[]; expiresAt?: string }> {
    if (!KEY_SHAPE.test(key ?? '')) throw DomainError.unauthenticated(INVALID_KEY);
    const lookup = await this.apiKeys.findByHash(hashApiKey(key));
    if (!lookup) throw DomainError.unauthenticated(INVALID_KEY);
    const [apiKey, workspace] = await Promise.all([
      this.apiKeys.get(lookup.workspaceId, lookup.keyId),
      this.workspaces.get(lookup.workspaceId),
    ]);
    if (!apiKey || apiKey.revokedAt || !workspace || isExpired(apiKey, this.now())) throw DomainError.unauthenticated(INVALID_KEY);
    return { keyId: apiKey.id, workspace, scopes: scopesOf(apiKey), ...(apiKey.expiresAt ? { expiresAt: apiKey.expiresAt } : {}) };
  }

  /**
   * Usage batches the gateways count in memory and flush now and then (no write per request).
   * Counts add up per key and day; lastUsedAt only moves forward, whatever order batches arrive in.
   * Entries for unknown keys or with malformed values are skipped: a batch is never refused whole.
   */
  async recordUsage(entries: UsageEntry[]): Promise<{ recorded: number; skipped: number }> {
    const owners = new Map<string, string | null>();
    let recorded = 0;
    for (const entry of entries) {
      const lastUsedAt =
        entry.lastUsedAt && !Number.isNaN(Date.parse(entry.lastUsedAt)) ? new Date(entry.lastUsedAt).toISOString() : undefined;
      const valid = /^\d{4}-\d{2}-\d{2}$/.test(entry.day) && Number.isInteger(entry.count) && entry.count >= 0;
      if (!owners.has(entry.keyId))
        owners.set(entry.keyId, entry.keyId ? ((await this.apiKeys.findByKeyId(entry.keyId))?.workspaceId ?? null) : null);
      const workspaceId = owners.get(entry.keyId);
      if (!valid || !workspaceId) continue;
      if (entry.count > 0) await this.apiKeys.addUsage(workspaceId, entry.keyId, entry.day, entry.count);
      if (lastUsedAt) await this.apiKeys.touchLastUsed(workspaceId, entry.keyId, lastUsedAt);
      recorded += 1;
    }
    return { recorded, skipped: entries.length - recorded };
  }
}
