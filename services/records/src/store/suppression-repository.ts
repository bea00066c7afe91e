/** Reads and writes of the suppression list and its hashing key (privacy-collections.ts). */
import { randomBytes } from 'node:crypto';
import { StoreError, type DocumentStore } from '@crm/store';
import { privacyKeys, suppressions } from './privacy-collections';

const KEY_ID = 'suppression';

export class SuppressionRepository {
  constructor(private readonly store: DocumentStore) {}

  /** The stored hashing key, made once (of replicas racing to make it, the first insert wins and every one reads it). */
  async storedKey(): Promise<Buffer> {
    const global = this.store.global();
    const existing = await global.get(privacyKeys, KEY_ID);
    if (existing) return Buffer.from(existing.key, 'base64');
    try {
      await global.insert(privacyKeys, { id: KEY_ID, key: randomBytes(32).toString('base64'), createdAt: new Date().toISOString() });
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
    }
    return Buffer.from((await global.get(privacyKeys, KEY_ID))!.key, 'base64');
  }

  /** Whether the workspace's list holds anything (one index read). */
  async anyListed(workspaceId: string): Promise<boolean> {
    return (await this.store.forWorkspace(workspaceId).find(suppressions, { limit: 1 })).length > 0;
  }

  /** Which of these hashes are on the workspace's list. */
  async listed(workspaceId: string, hashes: string[]): Promise<Set<string>> {
    if (hashes.length === 0) return new Set();
    const found = await this.store.forWorkspace(workspaceId).getMany(suppressions, hashes);
    return new Set(found.map((d) => d.id));
  }

  /** Puts the hash on the list; one already there stays as it was. */
  async add(workspaceId: string, hash: string, at: string): Promise<void> {
    try {
      await this.store.forWorkspace(workspaceId).insert(suppressions, { id: hash, workspaceId, createdAt: at });
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
    }
  }

  /** True when the hash was on the list. */
  remove(workspaceId: string, hash: string): Promise<boolean> {
    return this.store.forWorkspace(workspaceId).delete(suppressions, hash);
  }
}
