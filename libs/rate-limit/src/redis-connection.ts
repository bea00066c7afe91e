import { Redis, type RedisOptions } from 'ioredis';

/**
 * An ioredis connection that keeps retrying every few seconds at most and lets go of its socket
 * quickly on close (`disconnectTimeout` is honoured by ioredis though missing from its types).
 */
export function openRedisConnection(url: string, options: RedisOptions): Redis {
  const settings: RedisOptions & { disconnectTimeout: number } = {
    retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
    disconnectTimeout: 200,
    ...options,
  };
  return new Redis(url, settings);
}

export async function closeRedisConnection(redis: Redis): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}
