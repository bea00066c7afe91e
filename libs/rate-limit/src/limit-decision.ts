import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimitDecision } from './port';

/** Counts one request; a refusal arrives from rate-limiter-flexible as a rejected RateLimiterRes. */
export async function consumeOne(limiter: RateLimiterAbstract, key: string, limit: number): Promise<LimitDecision> {
  try {
    return limitDecision(true, limit, await limiter.consume(key, 1));
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return limitDecision(false, limit, rejection);
    throw rejection;
  }
}

function limitDecision(allowed: boolean, limit: number, res: RateLimiterRes, now = Date.now()): LimitDecision {
  return {
    allowed,
    limit,
    remaining: allowed ? Math.max(0, limit - res.consumedPoints) : 0,
    resetAt: Math.ceil((now + res.msBeforeNext) / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * Counters are kept per window length so that one key limited per minute and per day keeps two
 * counts; the limit itself is not part of the name, so a plan change keeps the current count.
 */
export function windowKeyPrefix(keyPrefix: string, windowSeconds: number): string {
  return `${keyPrefix.replace(/:+$/, '')}:${windowSeconds}s`;
}

/** One limiter per (limit, window) pair, built on first use. */
export class LimiterCache<L> {
  private readonly limiters = new Map<string, L>();

  constructor(private readonly build: (limit: number, windowSeconds: number) => L) {}

  get(limit: number, windowSeconds: number): L {
    const id = `${limit}/${windowSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.build(limit, windowSeconds);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
