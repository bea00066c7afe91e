import { StoreError, type DocumentStore } from '@crm/store';
import type { RefreshToken } from '../domain/model';
import type { RefreshTokenRepository } from '../domain/repositories';
import { refreshTokens } from './collections';

export class StoreRefreshTokenRepository implements RefreshTokenRepository {
  constructor(private readonly store: DocumentStore) {}

  get(id: string): Promise<RefreshToken | null> {
    return this.store.global().get(refreshTokens, id);
  }

  async insert(token: RefreshToken): Promise<void> {
    await this.store.global().insert(refreshTokens, token);
  }

  async rotate(usedId: string, usedAt: string, next: RefreshToken): Promise<boolean> {
    try {
      await this.store.global().commit([
        {
          kind: 'update',
          collection: refreshTokens,
          id: usedId,
          change: { set: { usedAt } },
          // The condition is what makes two concurrent refreshes with one token end in one winner.
          // Not revoked either: a refresh racing a logout must not carry the session past it.
          where: [
            { field: 'usedAt', op: 'exists', value: false },
            { field: 'revokedAt', op: 'exists', value: false },
          ],
          required: true,
        },
        { kind: 'insert', collection: refreshTokens, document: { ...next } },
      ]);
      return true;
    } catch (error) {
      if (error instanceof StoreError && error.code === 'conflict') return false;
      throw error;
    }
  }

  revokeFamily(familyId: string, revokedAt: string): Promise<number> {
    return this.revokeLive('familyId', familyId, revokedAt);
  }

  revokeUser(userId: string, revokedAt: string): Promise<number> {
    return this.revokeLive('userId', userId, revokedAt);
  }

  private revokeLive(field: 'familyId' | 'userId', value: string, revokedAt: string): Promise<number> {
    return this.store.global().updateMany(
      refreshTokens,
      [
        { field, op: 'eq', value },
        { field: 'revokedAt', op: 'exists', value: false },
      ],
      { set: { revokedAt } },
    );
  }
}
