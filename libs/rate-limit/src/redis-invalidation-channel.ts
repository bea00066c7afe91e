import type { Redis } from 'ioredis';
import type { Logger } from '@crm/observability';
import { LocalInvalidationChannel } from './local-invalidation-channel';
import type { InvalidationChannel, InvalidationEvent, InvalidationHandler } from './port';
import { closeRedisConnection, openRedisConnection } from './redis-connection';

/** How long opening waits for the subscription before going on without it (it completes later). */
const SUBSCRIBE_WAIT_MS = 2000;
/** How often the channel's version is read, to find events this replica missed. */
const VERSION_POLL_MS = 1000;
/** How long a version ahead of what was heard may wait for its message before it counts as missed. */
const IN_FLIGHT_GRACE_MS = 250;

export interface RedisInvalidationOptions {
  versionPollMs?: number;
}

/**
 * Invalidations across replicas over Redis pub/sub. Subscribing needs its own connection (a
 * subscribed connection can do nothing else); ioredis subscribes again after every reconnect.
 * Pub/sub is fire-and-forget: a replica disconnected at the moment misses the event. So every
 * publish also counts up a version key, and each replica reads it every second: a version past the
 * events it heard, or a subscription that had to reconnect, means it may have missed one, and it
 * hears `events_missed` (drop every cache). A missed revocation or plan change thus reaches every
 * replica within about two seconds of Redis answering it again.
 */
export class RedisInvalidationChannel implements InvalidationChannel {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly local: LocalInvalidationChannel;
  private readonly versionKey: string;
  private readonly poller: NodeJS.Timeout;
  /** The highest version this replica has heard, or acted on by dropping its caches. */
  private known: number | undefined;
  private subscribedBefore = false;

  private constructor(
    url: string,
    private readonly channel: string,
    private readonly logger: Logger,
    options: RedisInvalidationOptions,
  ) {
    this.versionKey = `${channel}:version`;
    this.local = new LocalInvalidationChannel(logger);
    // A publish while connecting waits for the connection; during an outage it fails after one retry.
    this.publisher = openRedisConnection(url, { maxRetriesPerRequest: 1 });
    this.subscriber = openRedisConnection(url, { autoResubscribe: true });
    // Errors surface on publish(); the listeners keep ioredis from reporting them as unhandled.
    this.publisher.on('error', (err: Error) => logger.debug({ err }, 'invalidation publisher connection error'));
    this.subscriber.on('error', (err: Error) => logger.debug({ err }, 'invalidation subscriber connection error'));
    this.subscriber.on('message', (from: string, text: string) => this.receive(from, text));
    // Whatever was published while the subscription was down is lost: a re-subscription drops every cache.
    this.subscriber.on('ready', () => {
      if (this.subscribedBefore) this.missed('the invalidation subscription reconnected');
      this.subscribedBefore = true;
    });
    this.poller = setInterval(() => void this.checkVersion(), options.versionPollMs ?? VERSION_POLL_MS);
    this.poller.unref();
  }

  static async open(
    url: string,
    channel: string,
    logger: Logger,
    options: RedisInvalidationOptions = {},
  ): Promise<RedisInvalidationChannel> {
    const opened = new RedisInvalidationChannel(url, channel, logger, options);
    await opened.subscribeOnce();
    await opened.checkVersion();
    return opened;
  }

  async publish(event: InvalidationEvent): Promise<void> {
    try {
      const version = await this.publisher.incr(this.versionKey);
      await this.publisher.publish(this.channel, JSON.stringify({ ...event, version }));
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
    clearInterval(this.poller);
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
    const parsed = parseInvalidation(text);
    if (!parsed) {
      this.logger.warn({ channel: from }, 'ignored a malformed invalidation');
      return;
    }
    this.local.deliver(parsed.event);
    if (parsed.version === undefined) return;
    // A version past the next one means the ones between were published and never arrived.
    const skipped = this.known !== undefined && parsed.version > this.known + 1;
    this.known = Math.max(this.known ?? 0, parsed.version);
    if (skipped) this.missed('an invalidation arrived with versions before it missing');
  }

  /** Reads the channel's version; one past what this replica heard (and still so after a moment) was missed. */
  private async checkVersion(): Promise<void> {
    // No key yet is version 0; a failed read (Redis away) is no answer at all.
    const read = async () => {
      const value = await this.publisher.get(this.versionKey).then(
        (v) => v ?? '0',
        () => undefined,
      );
      return value === undefined ? Number.NaN : Number(value);
    };
    let version = await read();
    if (!Number.isFinite(version)) return; // Redis away: the next poll tries again
    if (this.known === undefined) {
      this.known = version; // what was published before this replica started is in no cache of its
      return;
    }
    if (version <= this.known) return;
    await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_GRACE_MS).unref());
    version = Math.max(version, await read());
    if (version > this.known) {
      this.known = version;
      this.missed('the invalidation version moved past the events heard');
    }
  }

  private missed(reason: string): void {
    this.logger.warn({ channel: this.channel, reason }, 'invalidations may have been missed; dropping every cache');
    this.local.deliver({ kind: 'events_missed' });
  }
}

function parseInvalidation(text: string): { event: InvalidationEvent; version: number | undefined } | undefined {
  try {
    const value = JSON.parse(text) as Partial<Record<string, unknown>>;
    const version = typeof value.version === 'number' ? value.version : undefined;
    if (value.kind === 'api_key_revoked' && typeof value.keyId === 'string')
      return { event: { kind: value.kind, keyId: value.keyId }, version };
    if (value.kind === 'workspace_changed' && typeof value.workspaceId === 'string')
      return { event: { kind: value.kind, workspaceId: value.workspaceId }, version };
  } catch {
    // Falls through to "malformed".
  }
  return undefined;
}
