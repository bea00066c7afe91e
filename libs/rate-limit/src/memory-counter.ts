import { RateLimiterMemory } from 'rate-limiter-flexible';
import { LimiterCache, consumeOne, windowKeyPrefix } from './limit-decision';
import type { LimitDecision, RateLimitCounter } from './port';

/** Fixed windows counted in this process only: for a single gateway, or tests. */
export class MemoryRateLimitCounter implements RateLimitCounter {
  private readonly limiters: LimiterCache<RateLimiterMemory>;

  constructor(keyPrefix: string) {
    this.limiters = new LimiterCache(
      (points, duration) => new RateLimiterMemory({ points, duration, keyPrefix: windowKeyPrefix(keyPrefix, duration) }),
    );
  }

  consume(key: string, limit: number, windowSeconds: number): Promise<LimitDecision> {
    return consumeOne(this.limiters.get(limit, windowSeconds), key, limit);
  }

  mode(): 'shared' | 'local' {
    return 'local';
  }

  async close(): Promise<void> {}
}
