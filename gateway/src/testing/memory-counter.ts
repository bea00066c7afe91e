import type { LimitDecision, RateLimitCounter } from '@crm/rate-limit';

/** A fixed-window counter for tests, standing in for @crm/rate-limit's memory adapter. */
export class MemoryCounter implements RateLimitCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  async consume(key: string, limit: number, windowSeconds: number): Promise<LimitDecision> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt * 1000 <= now) {
      window = { count: 0, resetAt: Math.ceil(now / 1000) + windowSeconds };
      this.windows.set(key, window);
    }
    window.count += 1;
    const allowed = window.count <= limit;
    return {
      allowed,
      limit,
      remaining: allowed ? limit - window.count : 0,
      resetAt: window.resetAt,
      retryAfterSeconds: allowed ? 0 : Math.max(1, window.resetAt - Math.floor(now / 1000)),
    };
  }

  mode(): 'shared' | 'local' {
    return 'local';
  }

  async close(): Promise<void> {}
}
