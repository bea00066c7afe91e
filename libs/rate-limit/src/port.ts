/**
 * The rate-limit counter port: fixed windows counted in Redis (ioredis + rate-limiter-flexible),
 * shared by every gateway replica; rate-limiter-flexible's memory limiter when no Redis is set,
 * and as the fallback while Redis is unreachable (logged when it starts and when it ends).
 */

export interface LimitDecision {
  allowed: boolean;
  /** Requests allowed in the window. */
  limit: number;
  /** Requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Unix seconds at which the window resets. */
  resetAt: number;
  /** Seconds until a refused caller may try again (0 when allowed). */
  retryAfterSeconds: number;
}

export interface RateLimitCounter {
  /** Counts one request for `key` against `limit` per `windowSeconds`. */
  consume(key: string, limit: number, windowSeconds: number): Promise<LimitDecision>;
  /** Whether counts are currently shared (Redis reachable) or local (memory/fallback). */
  mode(): 'shared' | 'local';
  close(): Promise<void>;
}

export type RateLimitLocation = { kind: 'redis'; url: string; keyPrefix?: string } | { kind: 'memory' };

/** News every gateway replica must hear at once, because what it has cached is now wrong. */
export type InvalidationEvent =
  | { kind: 'api_key_revoked'; keyId: string }
  | { kind: 'workspace_changed'; workspaceId: string }
  /**
   * Never published: delivered on this replica when it may have missed events (its subscription
   * dropped, or the channel's version moved past what it heard), so it drops everything it cached.
   */
  | { kind: 'events_missed' };

export type InvalidationHandler = (event: InvalidationEvent) => void;

/** Fan-out of invalidations: Redis pub/sub across replicas, an in-process emitter without Redis. */
export interface InvalidationChannel {
  /** Reaches every subscriber, on this replica and the others (this one included). */
  publish(event: InvalidationEvent): Promise<void>;
  /** Returns the function that unsubscribes `handler`. */
  subscribe(handler: InvalidationHandler): () => void;
  close(): Promise<void>;
}
