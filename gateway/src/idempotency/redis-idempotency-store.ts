import type { Redis } from 'ioredis';
import { closeRedisConnection, openRedisConnection } from '@crm/rate-limit';
import { answerHolds, workspaceKeyPrefix, type IdempotencyEntry, type IdempotencyStore, type StoredAnswer } from './idempotency-store';

/** PEXPIRE only while the key still holds this claim: a renewal never extends another request's entry. */
const RENEW_SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0";

const runningEntry = (fingerprint: string): string => JSON.stringify({ state: 'running', fingerprint } satisfies IdempotencyEntry);

/**
 * Keys shared by every gateway replica: the claim is one `SET NX PX`, so of two requests with one
 * key, on any replicas, exactly one runs. Commands fail fast while Redis is away (the middleware
 * then answers 503 rather than run a request it cannot guard).
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  private constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  static open(url: string, keyPrefix: string): RedisIdempotencyStore {
    const redis = openRedisConnection(url, { enableOfflineQueue: true, maxRetriesPerRequest: 1, commandTimeout: 2000 });
    redis.on('error', () => undefined); // each failed command rejects on its own; the middleware logs those
    return new RedisIdempotencyStore(redis, `${keyPrefix}idem:`);
  }

  async claim(key: string, fingerprint: string, claimMs: number): Promise<IdempotencyEntry | null> {
    const running = runningEntry(fingerprint);
    // A key can lapse between a failed SET and the GET; then the next round claims it.
    for (let round = 0; round < 3; round++) {
      const taken = await this.redis.set(this.keyPrefix + key, running, 'PX', claimMs, 'NX');
      if (taken === 'OK') return null;
      const existing = await this.redis.get(this.keyPrefix + key);
      if (existing !== null) return JSON.parse(existing) as IdempotencyEntry;
    }
    throw new Error('Idempotency key kept lapsing while it was claimed');
  }

  async renew(key: string, fingerprint: string, claimMs: number): Promise<void> {
    await this.redis.eval(RENEW_SCRIPT, 1, this.keyPrefix + key, runningEntry(fingerprint), claimMs);
  }

  async complete(key: string, fingerprint: string, answer: StoredAnswer, keepMs: number): Promise<void> {
    const done: IdempotencyEntry = { state: 'done', fingerprint, answer };
    await this.redis.set(this.keyPrefix + key, JSON.stringify(done), 'PX', keepMs);
  }

  async release(key: string): Promise<void> {
    await this.redis.del(this.keyPrefix + key);
  }

  /** SCANs the workspace's keys (never KEYS, which blocks Redis): an erasure's rare, bounded walk. */
  async forgetAnswersHolding(workspaceId: string, needles: string[]): Promise<number> {
    const pattern = `${this.keyPrefix}${workspaceKeyPrefix(workspaceId)}`.replace(/[*?[\]\\]/g, '\\$&') + '*';
    let forgotten = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      const values = await this.redis.mget(...keys);
      const holding = keys.filter((_, i) => values[i] && answerHolds(JSON.parse(values[i]!) as IdempotencyEntry, needles));
      if (holding.length > 0) forgotten += await this.redis.del(...holding);
    } while (cursor !== '0');
    return forgotten;
  }

  async close(): Promise<void> {
    await closeRedisConnection(this.redis);
  }
}
