export * from './port';
export * from './open-rate-limit';
export * from './revocation-channel';
export { MemoryRateLimitCounter } from './memory-counter';
export { LocalInvalidationChannel } from './local-invalidation-channel';
export { RedisRateLimitCounter } from './redis-counter';
export { openRedisConnection, closeRedisConnection } from './redis-connection';
