import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import type { Logger } from '@crm/observability';
import { LimiterCache, consumeOne, windowKeyPrefix } from './limit-decision';
import { closeRedisConnection, openRedisConnection } from './redis-connection';
import type { LimitDecision, RateLimitCounter } from './port';

const FIRST_CONNECTION_WAIT_MS = 2000;
/** How often a replica says it is alive, and how long after its last word it still counts. */
const HEARTBEAT_MS = 1000;
const REPLICA_TTL_MS = 10_000;

/**
 * Fixed windows counted in Redis, so every gateway replica draws on one budget. While Redis is
 * unreachable (or a count fails) each replica counts in memory and enforces its share of the
 * budget: the limit divided by the replicas it last saw alive in Redis, so that together they
 * stay within the plan rather than each granting all of it. Answers then carry that share as
 * their X-RateLimit-Limit.
 */
export class RedisRateLimitCounter implements RateLimitCounter {
  private readonly redis: Redis;
  private readonly limiters: LimiterCache<RateLimiterRedis>;
  private readonly localLimiters: LimiterCache<RateLimiterMemory>;
  private counting: 'starting' | 'shared' | 'local' = 'starting';
  private closing = false;
  private readonly replicasKey: string;
  private readonly replicaId = randomUUID();
  /** Gateway replicas alive at the last heartbeat that Redis answered. */
  private replicas = 1;
  /** When the current connection became ready: a count taken sooner than REPLICA_TTL_MS after it may be short. */
  private readySince = 0;
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(
    url: string,
    keyPrefix: string,
    private readonly logger: Logger,
  ) {
    this.replicasKey = `${keyPrefix.replace(/:+$/, '')}:replicas`;
    // Fail fast into the insurance limiter instead of queueing requests behind a dead link. Under
    // load, the counts of every request read in one turn of the event loop go out as one pipeline:
    // one write for the gateway and one read for Redis instead of one per request.
    this.redis = openRedisConnection(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1000,
      enableAutoPipelining: true,
    });
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
      });
    });
    this.localLimiters = new LimiterCache(
      (points, duration) => new RateLimiterMemory({ points, duration, keyPrefix: windowKeyPrefix(keyPrefix, duration) }),
    );
    this.redis.on('ready', () => void this.sayAlive());
    this.heartbeat = setInterval(() => void this.sayAlive(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /**
   * Waits for the first connection attempt to settle, so a replica that starts next to a healthy
   * Redis counts shared from its first request; an unreachable Redis does not hold start-up.
   */
  static async open(url: string, keyPrefix: string, logger: Logger): Promise<RedisRateLimitCounter> {
    const counter = new RedisRateLimitCounter(url, keyPrefix, logger);
    await counter.firstConnectionAttempt();
    await counter.sayAlive();
    return counter;
  }

  async consume(key: string, limit: number, windowSeconds: number): Promise<LimitDecision> {
    if (this.redis.status === 'ready') {
      try {
        return await consumeOne(this.limiters.get(limit, windowSeconds), key, limit);
      } catch (err) {
        this.logger.warn({ err, key }, 'shared rate-limit count failed; counting this request in this replica');
      }
    }
    const share = Math.max(1, Math.floor(limit / this.replicas));
    return consumeOne(this.localLimiters.get(share, windowSeconds), key, share);
  }

  /** The replicas that count on this Redis (for tests and logs). */
  replicasSeen(): number {
    return this.replicas;
  }

  mode(): 'shared' | 'local' {
    return this.redis.status === 'ready' ? 'shared' : 'local';
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    if (this.redis.status === 'ready') await this.redis.zrem(this.replicasKey, this.replicaId).catch(() => undefined);
    await closeRedisConnection(this.redis);
  }

  /** Marks this replica alive and reads how many are: the share each enforces while Redis is away. */
  private async sayAlive(): Promise<void> {
    if (this.redis.status !== 'ready' || this.closing) return;
    const now = Date.now();
    try {
      const results = await this.redis
        .multi()
        .zadd(this.replicasKey, now, this.replicaId)
        .zremrangebyscore(this.replicasKey, 0, now - REPLICA_TTL_MS)
        .zcard(this.replicasKey)
        .pexpire(this.replicasKey, REPLICA_TTL_MS * 4)
        .exec();
      const count = Number(results?.[2]?.[1]);
      // A Redis that restarted empty hears from each replica only at its next heartbeat, so a count
      // taken soon after reconnecting can miss replicas that are alive: keep the larger count until
      // every live replica has had REPLICA_TTL_MS to say so, or an outage then would let each grant too much.
      const settling = now - this.readySince < REPLICA_TTL_MS;
      if (Number.isInteger(count) && count > 0) this.replicas = settling ? Math.max(this.replicas, count) : count;
    } catch (err) {
      this.logger.debug({ err }, 'rate-limit heartbeat failed');
    }
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
    this.readySince = Date.now();
    if (this.counting === 'local') this.logger.info('Redis reachable again; rate limits are shared across replicas once more');
    this.counting = 'shared';
  }

  private countLocally(err?: Error): void {
    if (this.closing || this.counting === 'local') return;
    this.counting = 'local';
    this.logger.warn({ err }, 'Redis unreachable; counting rate limits in this replica until it is back');
  }
}
