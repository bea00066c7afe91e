import { StoreError, type DocumentStore } from '@crm/store';
import { CURRENT_SIGNING_KEY_ID, PREVIOUS_SIGNING_KEY_ID } from '../domain/signing-keys';
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
      return await this.store.global().insert(signingKeys, { ...key, id: CURRENT_SIGNING_KEY_ID });
    } catch (error) {
      // Another replica starting at the same moment won the insert: use its key, so both agree.
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
      const stored = await this.get(CURRENT_SIGNING_KEY_ID);
      if (!stored) throw error;
      return stored;
    }
  }

  async rotate(from: SigningKey, to: SigningKey): Promise<boolean> {
    const { kid, algorithm, privateKeyPem, publicKeyPem, createdAt } = to;
    try {
      await this.store.global().commit([
        {
          kind: 'update',
          collection: signingKeys,
          id: CURRENT_SIGNING_KEY_ID,
          change: { set: { kid, algorithm, privateKeyPem, publicKeyPem, createdAt } },
          // Only the rotation that read this current key wins; a concurrent one fails and changes nothing.
          where: [{ field: 'kid', op: 'eq', value: from.kid }],
          required: true,
        },
        { kind: 'delete', collection: signingKeys, id: PREVIOUS_SIGNING_KEY_ID },
        { kind: 'insert', collection: signingKeys, document: { ...from, id: PREVIOUS_SIGNING_KEY_ID } },
      ]);
      return true;
    } catch (error) {
      if (error instanceof StoreError && error.code === 'conflict') return false;
      throw error;
    }
  }
}
