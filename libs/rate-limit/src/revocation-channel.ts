import type { Logger } from '@crm/observability';
import { LocalInvalidationChannel } from './local-invalidation-channel';
import type { InvalidationChannel, RateLimitLocation } from './port';
import { RedisInvalidationChannel, type RedisInvalidationOptions } from './redis-invalidation-channel';

/**
 * Where every gateway replica hears that an API key was revoked or a workspace's plan changed:
 * the Redis the rate limits live in when there is one, this process otherwise.
 */
export async function openInvalidationChannel(
  location: RateLimitLocation,
  logger: Logger,
  options: RedisInvalidationOptions = {},
): Promise<InvalidationChannel> {
  switch (location.kind) {
    case 'redis':
      return RedisInvalidationChannel.open(location.url, `${location.keyPrefix ?? 'crm'}:invalidations`, logger, options);
    case 'memory':
      return new LocalInvalidationChannel(logger);
  }
}
