import type { DocumentStore } from '@crm/store';
import type { ApiKey, ApiKeyLookup, ApiKeyUsageDay } from '../domain/model';
import type { ApiKeyRepository } from '../domain/repositories';
import { apiKeyLookup, apiKeys, apiKeyUsage } from './collections';

export class StoreApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly store: DocumentStore) {}

  /** The key and the lookup that verifies it land together. */
  async create(key: ApiKey, lookup: ApiKeyLookup): Promise<void> {
    await this.store.forWorkspace(key.workspaceId).commit([
      { kind: 'insert', collection: apiKeys, document: { ...key } },
      { kind: 'insert', collection: apiKeyLookup, document: { ...lookup } },
    ]);
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
