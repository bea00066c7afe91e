import type { Logger } from '@crm/observability';
import { MemoryRateLimitCounter } from './memory-counter';
import type { RateLimitCounter, RateLimitLocation } from './port';
import { RedisRateLimitCounter } from './redis-counter';

export const DEFAULT_KEY_PREFIX = 'crm:rate';

/** Shared counts in Redis when `REDIS_URL` is set, memory otherwise. */
export function rateLimitLocationFromEnv(redisUrl: string | undefined = process.env.REDIS_URL): RateLimitLocation {
  return redisUrl ? { kind: 'redis', url: redisUrl } : { kind: 'memory' };
}

export async function openRateLimitCounter(location: RateLimitLocation, logger: Logger): Promise<RateLimitCounter> {
  switch (location.kind) {
    case 'redis':
      return RedisRateLimitCounter.open(location.url, location.keyPrefix ?? DEFAULT_KEY_PREFIX, logger);
    case 'memory':
      return new MemoryRateLimitCounter(DEFAULT_KEY_PREFIX);
  }
}
