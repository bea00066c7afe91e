import type { DocumentStore } from '@crm/store';
import type { ApiKey, ApiKeyLookup, ApiKeyUsageDay } from '../domain/model';
import type { ApiKeyRepository } from '../domain/repositories';
import { apiKeyLookup, apiKeys, apiKeyUsage } from './collections';

export class StoreApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly store: DocumentStore) {}

  /**
   * Two writes, since a commit cannot span the global and a workspace scope: the lookup first, which
   * verifies nothing without its key, then the key, which makes it live. A failed key insert removes
   * the lookup; a crash in between leaves a lookup that never verifies.
   */
  async create(key: ApiKey, lookup: ApiKeyLookup): Promise<void> {
    await this.store.global().insert(apiKeyLookup, lookup);
    try {
      await this.store.forWorkspace(key.workspaceId).insert(apiKeys, key);
    } catch (error) {
      await this.store.global().delete(apiKeyLookup, lookup.id);
      throw error;
    }
  }

  get(workspaceId: string, id: string): Promise<ApiKey | null> {
    return this.store.forWorkspace(workspaceId).get(apiKeys, id);
  }

  listActive(workspaceId: string): Promise<ApiKey[]> {
    return this.store.forWorkspace(workspaceId).find(apiKeys, {
      where: [{ field: 'revokedAt', op: 'exists', value: false }],
      sort: [{ field: 'createdAt', direction: 'desc' }],
    });
  }

  async revoke(workspaceId: string, id: string, revokedAt: string): Promise<boolean> {
    const updated = await this.store
      .forWorkspace(workspaceId)
      .update(apiKeys, id, { set: { revokedAt } }, { where: [{ field: 'revokedAt', op: 'exists', value: false }] });
    return updated !== null;
  }

  findByHash(hash: string): Promise<ApiKeyLookup | null> {
    return this.store.global().get(apiKeyLookup, hash);
  }

  findByKeyId(keyId: string): Promise<ApiKeyLookup | null> {
    return this.store.global().findOne(apiKeyLookup, [{ field: 'keyId', op: 'eq', value: keyId }]);
  }

  async addUsage(workspaceId: string, keyId: string, day: string, count: number): Promise<void> {
    await this.store
      .forWorkspace(workspaceId)
      .upsert(apiKeyUsage, { id: `${keyId}:${day}`, workspaceId, keyId, day, count }, { inc: { count } });
  }

  async touchLastUsed(workspaceId: string, keyId: string, at: string): Promise<void> {
    // Batches from several gateways arrive in any order; the condition keeps lastUsedAt monotonic.
    await this.store.forWorkspace(workspaceId).update(
      apiKeys,
      keyId,
      { set: { lastUsedAt: at } },
      {
        where: [
          {
            or: [[{ field: 'lastUsedAt', op: 'exists', value: false }], [{ field: 'lastUsedAt', op: 'lt', value: at }]],
          },
        ],
      },
    );
  }

  usageSince(workspaceId: string, keyId: string, sinceDay: string): Promise<ApiKeyUsageDay[]> {
    return this.store.forWorkspace(workspaceId).find(apiKeyUsage, {
      where: [
        { field: 'keyId', op: 'eq', value: keyId },
        { field: 'day', op: 'gte', value: sinceDay },
      ],
      sort: [{ field: 'day', direction: 'desc' }],
    });
  }
}
