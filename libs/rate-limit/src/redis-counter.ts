import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Logger } from '@crm/observability';
import { LimiterCache, consumeOne, windowKeyPrefix } from './limit-decision';
import { closeRedisConnection, openRedisConnection } from './redis-connection';
import type { LimitDecision, RateLimitCounter } from './port';

const FIRST_CONNECTION_WAIT_MS = 2000;

/**
 * Fixed windows counted in Redis, so every gateway replica draws on one budget. While Redis is
 * unreachable each replica counts in memory (the insurance limiter) rather than refusing or
 * waving everything through.
 */
export class RedisRateLimitCounter implements RateLimitCounter {
  private readonly redis: Redis;
  private readonly limiters: LimiterCache<RateLimiterRedis>;
  private counting: 'starting' | 'shared' | 'local' = 'starting';
  private closing = false;

  private constructor(
    url: string,
    keyPrefix: string,
    private readonly logger: Logger,
  ) {
    // Fail fast into the insurance limiter instead of queueing requests behind a dead link.
    this.redis = openRedisConnection(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 1000 });
    this.redis.on('ready', () => this.countShared());
    this.redis.on('error', (err: Error) => this.countLocally(err));
    this.redis.on('close', () => this.countLocally());
    this.limiters = new LimiterCache((points, duration) => {
      const prefix = windowKeyPrefix(keyPrefix, duration);
      return new RateLimiterRedis({
        storeClient: this.redis,
        points,
        duration,
        keyPrefix: prefix,
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ points, duration, keyPrefix: prefix }),
      });
    });
  }

  /**
   * Waits for the first connection attempt to settle, so a replica that starts next to a healthy
   * Redis counts shared from its first request; an unreachable Redis does not hold start-up.
   */
  static async open(url: string, keyPrefix: string, logger: Logger): Promise<RedisRateLimitCounter> {
    const counter = new RedisRateLimitCounter(url, keyPrefix, logger);
    await counter.firstConnectionAttempt();
    return counter;
  }

  consume(key: string, limit: number, windowSeconds: number): Promise<LimitDecision> {
    return consumeOne(this.limiters.get(limit, windowSeconds), key, limit);
  }

  mode(): 'shared' | 'local' {
    return this.redis.status === 'ready' ? 'shared' : 'local';
  }

  async close(): Promise<void> {
    this.closing = true;
    await closeRedisConnection(this.redis);
  }

  private async firstConnectionAttempt(): Promise<void> {
    if (this.counting !== 'starting') return;
    await new Promise<void>((resolve) => {
      const settle = (): void => {
        clearTimeout(timer);
        this.redis.off('ready', settle);
        this.redis.off('error', settle);
        resolve();
      };
      const timer = setTimeout(settle, FIRST_CONNECTION_WAIT_MS);
      this.redis.once('ready', settle);
      this.redis.once('error', settle);
    });
  }

  private countShared(): void {
    if (this.counting === 'local') this.logger.info('Redis reachable again; rate limits are shared across replicas once more');
    this.counting = 'shared';
  }

  private countLocally(err?: Error): void {
    if (this.closing || this.counting === 'local') return;
    this.counting = 'local';
    this.logger.warn({ err }, 'Redis unreachable; counting rate limits in this replica until it is back');
  }
}
