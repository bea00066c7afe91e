import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import { ACCOUNT_LIMITS } from '@crm/vocabulary';

export const PASSWORD_MIN_LENGTH = ACCOUNT_LIMITS.passwordMin;
export const PASSWORD_MAX_LENGTH = ACCOUNT_LIMITS.passwordMax;

export interface PasswordHashingOptions {
  /** KiB; argon2's default (64 MiB) unless a test lowers it. */
  memoryCost?: number;
  timeCost?: number;
  parallelism?: number;
}

/** argon2id hashing; verification of unknown users still spends the same work (see verifyOrBurn). */
export class PasswordHasher {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly options: PasswordHashingOptions = {}) {}

  hash(password: string): Promise<string> {
    return argon2.hash(password, { type: argon2.argon2id, ...this.options });
  }

  async verify(hash: string, password: string): Promise<boolean> {
    try {
      return await argon2.verify(hash, password);
    } catch {
      return false; // a malformed stored hash never logs anyone in
    }
  }

  /**
   * Verifies against `hash`, or, when there is no user, against a dummy hash made with the same
   * parameters, so the answer takes as long whether or not the email exists.
   */
  async verifyOrBurn(hash: string | undefined, password: string): Promise<boolean> {
    if (hash) return this.verify(hash, password);
    this.dummyHash ??= this.hash(randomBytes(32).toString('base64url'));
    await this.verify(await this.dummyHash, password);
    return false;
  }
}
