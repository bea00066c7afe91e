import { ExpiringLru } from '../auth/expiring-lru';
import { answerHolds, workspaceKeyPrefix, type IdempotencyEntry, type IdempotencyStore, type StoredAnswer } from './idempotency-store';

/**
 * The one-process store (no REDIS_URL): keys hold within this gateway only. Bounded: past
 * `maxEntries` the least recently used keys are forgotten first, so a flood of keys costs churn,
 * not memory (at most maxEntries × the 1 MB answer bound, in the worst case).
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly entries: ExpiringLru<string, IdempotencyEntry>;

  constructor(
    maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new ExpiringLru(maxEntries, now);
  }

  async claim(key: string, fingerprint: string, claimMs: number): Promise<IdempotencyEntry | null> {
    const existing = this.entries.get(key);
    if (existing) return existing;
    this.entries.set(key, { state: 'running', fingerprint }, this.now() + claimMs);
    return null;
  }

  async renew(key: string, fingerprint: string, claimMs: number): Promise<void> {
    const existing = this.entries.get(key);
    if (existing?.state === 'running' && existing.fingerprint === fingerprint) this.entries.set(key, existing, this.now() + claimMs);
  }

  async complete(key: string, fingerprint: string, answer: StoredAnswer, keepMs: number): Promise<void> {
    this.entries.set(key, { state: 'done', fingerprint, answer }, this.now() + keepMs);
  }

  async release(key: string): Promise<void> {
    this.entries.delete(key);
  }

  async forgetAnswersHolding(workspaceId: string, needles: string[]): Promise<number> {
    const prefix = workspaceKeyPrefix(workspaceId);
    let forgotten = 0;
    this.entries.deleteWhere((entry, key) => {
      const holds = key.startsWith(prefix) && answerHolds(entry, needles);
      if (holds) forgotten++;
      return holds;
    });
    return forgotten;
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}
