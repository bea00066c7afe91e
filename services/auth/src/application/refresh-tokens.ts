import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DomainError } from '@crm/observability';
import { DAY_MS } from '../domain/clock';
import { type Clock } from '@crm/vocabulary';
import { newId } from '../domain/ids';
import type { RefreshToken, User } from '../domain/model';
import type { RefreshTokenRepository, SessionEndRepository } from '../domain/repositories';

/** `rt_<id>.<secret>`: the id finds the stored record, the secret (32 random bytes) proves possession. */
const TOKEN_SHAPE = /^(rt_[0-9A-Za-z]{22})\.([A-Za-z0-9_-]{43})$/;

const INVALID = 'Invalid or expired refresh token.';

function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export interface IssuedRefreshToken {
  token: string;
  /** The user's session generation, read before the token was stored: the access token carries it. */
  sessionGeneration: number;
}

export interface RotatedRefreshToken extends IssuedRefreshToken {
  userId: string;
  workspaceId: string;
}

/**
 * Opaque refresh tokens rotated on every use. Presenting a token that was already rotated means
 * two parties hold it, so the whole family (every token descending from that login) is revoked.
 */
export class RefreshTokenService {
  constructor(
    private readonly repository: RefreshTokenRepository,
    private readonly sessionEnds: SessionEndRepository,
    private readonly ttlDays: number,
    private readonly now: Clock,
  ) {}

  /**
   * The first token of a login: a new family. The generation is read before the token is stored
   * (here and in rotate) while ending sessions revokes tokens before bumping it: so however the two
   * interleave, a session that outlives an end carries an access token of the old generation.
   */
  async issue(user: Pick<User, 'id' | 'workspaceId'>): Promise<IssuedRefreshToken> {
    const sessionGeneration = await this.sessionEnds.generation(user.workspaceId, user.id);
    const { record, token } = this.mint(user.id, user.workspaceId, newId('fam_'));
    await this.repository.insert(record);
    return { token, sessionGeneration };
  }

  async rotate(presented: string): Promise<RotatedRefreshToken> {
    const stored = await this.find(presented);
    if (!stored) throw DomainError.unauthenticated(INVALID);
    if (stored.revokedAt) throw DomainError.unauthenticated(INVALID);
    if (stored.usedAt) return this.theft(stored);
    const now = this.now();
    if (Date.parse(stored.expiresAt) <= now.getTime()) throw DomainError.unauthenticated(INVALID);

    const sessionGeneration = await this.sessionEnds.generation(stored.workspaceId, stored.userId);
    const { record, token } = this.mint(stored.userId, stored.workspaceId, stored.familyId);
    const rotated = await this.repository.rotate(stored.id, now.toISOString(), record);
    if (!rotated) return this.theft(stored); // rotated a moment ago (theft), or revoked by a logout meanwhile
    return { token, sessionGeneration, userId: stored.userId, workspaceId: stored.workspaceId };
  }

  /** Logout: revokes the family of the token presented. A malformed, unknown or forged token ends nothing. */
  async revokeSession(presented: string): Promise<void> {
    const stored = await this.find(presented);
    if (stored) await this.repository.revokeFamily(stored.familyId, this.now().toISOString());
  }

  /** Every session of the user, whatever the family. */
  async revokeUser(userId: string): Promise<void> {
    await this.repository.revokeUser(userId, this.now().toISOString());
  }

  /** The stored token when `presented` is well formed and its secret matches. */
  private async find(presented: string): Promise<RefreshToken | null> {
    const match = TOKEN_SHAPE.exec(presented);
    if (!match) return null;
    const [, id, secret] = match as unknown as [string, string, string];
    const stored = await this.repository.get(id);
    // A wrong secret for a real id is a forgery, not a reuse: refuse it without touching the family.
    if (!stored || !timingSafeEqual(hashSecret(secret), Buffer.from(stored.tokenHash, 'hex'))) return null;
    return stored;
  }

  /** Ends every session of the family; the refresh answer is the same 401 as for any bad token. */
  private async theft(stored: RefreshToken): Promise<never> {
    await this.repository.revokeFamily(stored.familyId, this.now().toISOString());
    throw DomainError.unauthenticated(INVALID);
  }

  private mint(userId: string, workspaceId: string, familyId: string): { record: RefreshToken; token: string } {
    const id = newId('rt_');
    const secret = randomBytes(32).toString('base64url');
    const now = this.now();
    return {
      token: `${id}.${secret}`,
      record: {
        id,
        familyId,
        userId,
        workspaceId,
        tokenHash: hashSecret(secret).toString('hex'),
        // Each token lives 30 days from its own issue: a client in daily use stays logged in.
        expiresAt: new Date(now.getTime() + this.ttlDays * DAY_MS).toISOString(),
        createdAt: now.toISOString(),
      },
    };
  }
}
