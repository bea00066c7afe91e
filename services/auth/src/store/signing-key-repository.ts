import { StoreError, type DocumentStore } from '@crm/store';
import type { SigningKey } from '../domain/model';
import type { SigningKeyRepository } from '../domain/repositories';
import { signingKeys } from './collections';

export class StoreSigningKeyRepository implements SigningKeyRepository {
  constructor(private readonly store: DocumentStore) {}

  get(id: string): Promise<SigningKey | null> {
    return this.store.global().get(signingKeys, id);
  }

  async insertOrGet(key: SigningKey): Promise<SigningKey> {
    try {
      return await this.store.global().insert(signingKeys, key);
    } catch (error) {
      // Another replica starting at the same moment won the insert: use its key, so both agree.
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
      const stored = await this.get(key.id);
      if (!stored) throw error;
      return stored;
    }
  }
}
