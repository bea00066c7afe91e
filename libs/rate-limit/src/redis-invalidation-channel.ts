import type { Redis } from 'ioredis';
import type { Logger } from '@crm/observability';
import { LocalInvalidationChannel } from './local-invalidation-channel';
import type { InvalidationChannel, InvalidationEvent, InvalidationHandler } from './port';
import { closeRedisConnection, openRedisConnection } from './redis-connection';

/** How long opening waits for the subscription before going on without it (it completes later). */
const SUBSCRIBE_WAIT_MS = 2000;

/**
 * Invalidations across replicas over Redis pub/sub. Subscribing needs its own connection (a
 * subscribed connection can do nothing else); ioredis subscribes again after every reconnect.
 * Pub/sub is fire-and-forget: a replica disconnected at the moment misses the event, which is
 * why cached keys and plans also expire on their own.
 */
export class RedisInvalidationChannel implements InvalidationChannel {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly local: LocalInvalidationChannel;

  private constructor(
    url: string,
    private readonly channel: string,
    private readonly logger: Logger,
  ) {
    this.local = new LocalInvalidationChannel(logger);
    // A publish while connecting waits for the connection; during an outage it fails after one retry.
    this.publisher = openRedisConnection(url, { maxRetriesPerRequest: 1 });
    this.subscriber = openRedisConnection(url, { autoResubscribe: true });
    // Errors surface on publish(); the listeners keep ioredis from reporting them as unhandled.
    this.publisher.on('error', (err: Error) => logger.debug({ err }, 'invalidation publisher connection error'));
    this.subscriber.on('error', (err: Error) => logger.debug({ err }, 'invalidation subscriber connection error'));
    this.subscriber.on('message', (from: string, text: string) => this.receive(from, text));
  }

  static async open(url: string, channel: string, logger: Logger): Promise<RedisInvalidationChannel> {
    const opened = new RedisInvalidationChannel(url, channel, logger);
    await opened.subscribeOnce();
    return opened;
  }

  async publish(event: InvalidationEvent): Promise<void> {
    try {
      await this.publisher.publish(this.channel, JSON.stringify(event));
    } catch (err) {
      // The other replicas miss this one; this replica at least stops trusting its cache.
      this.local.deliver(event);
      throw err;
    }
  }

  subscribe(handler: InvalidationHandler): () => void {
    return this.local.subscribe(handler);
  }

  async close(): Promise<void> {
    await this.local.close();
    await Promise.all([closeRedisConnection(this.publisher), closeRedisConnection(this.subscriber)]);
  }

  private async subscribeOnce(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const subscribed = this.subscriber.subscribe(this.channel).then(() => true);
    const gaveUp = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), SUBSCRIBE_WAIT_MS);
    });
    subscribed.catch((err: unknown) => this.logger.warn({ err }, 'could not subscribe to invalidations'));
    const inTime = await Promise.race([subscribed.catch(() => false), gaveUp]);
    clearTimeout(timer);
    if (!inTime) this.logger.warn({ channel: this.channel }, 'Redis unreachable; invalidations from other replicas arrive once it is back');
  }

  private receive(from: string, text: string): void {
    if (from !== this.channel) return;
    const event = parseInvalidation(text);
    if (event) this.local.deliver(event);
    else this.logger.warn({ channel: from }, 'ignored a malformed invalidation');
  }
}

function parseInvalidation(text: string): InvalidationEvent | undefined {
  try {
    const value = JSON.parse(text) as Partial<Record<string, unknown>>;
    if (value.kind === 'api_key_revoked' && typeof value.keyId === 'string') return { kind: value.kind, keyId: value.keyId };
    if (value.kind === 'workspace_changed' && typeof value.workspaceId === 'string')
      return { kind: value.kind, workspaceId: value.workspaceId };
  } catch {
    // Falls through to "malformed".
  }
  return undefined;
}
