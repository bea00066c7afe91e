import { randomUUID } from 'node:crypto';
import { createLogger } from '@crm/observability';
import type { Redis } from 'ioredis';
import type { InvalidationEvent } from './port';
import { openRedisConnection } from './redis-connection';
import { RedisInvalidationChannel } from './redis-invalidation-channel';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const logger = createLogger('invalidation-spec', { level: 'silent' });

async function eventually(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A replica whose subscription is cut: its connection closes and does not come back. */
function cutSubscription(channel: RedisInvalidationChannel): void {
  ((channel as unknown as { subscriber: Redis }).subscriber as Redis).disconnect(false);
}

describe('the Redis invalidation channel, when a replica misses an event', () => {
  let channels: RedisInvalidationChannel[] = [];
  const open = async (name: string) => {
    const channel = await RedisInvalidationChannel.open(REDIS_URL, name, logger, { versionPollMs: 200 });
    channels.push(channel);
    return channel;
  };

  beforeAll(async () => {
    const probe = openRedisConnection(REDIS_URL, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    await probe.connect().catch(() => {
      throw new Error(`Redis is not reachable at ${REDIS_URL}: start it (redis-server --daemonize yes --port 6379 --save "")`);
    });
    probe.disconnect();
  });

  afterEach(async () => {
    await Promise.all(channels.map((c) => c.close()));
    channels = [];
  });

  it('tells the replica whose subscription was cut to drop its caches, within a few polls', async () => {
    const name = `test:${randomUUID()}:invalidations`;
    const publisher = await open(name);
    const deaf = await open(name);
    const heard: InvalidationEvent[] = [];
    deaf.subscribe((event) => heard.push(event));
    cutSubscription(deaf);

    await publisher.publish({ kind: 'api_key_revoked', keyId: 'key-1' });
    await eventually(() => heard.length > 0, 'the deaf replica to hear that it missed something');

    expect(heard).toEqual([{ kind: 'events_missed' }]);
  });

  it('does not cry wolf: a replica that hears every event is never told it missed one', async () => {
    const name = `test:${randomUUID()}:invalidations`;
    const publisher = await open(name);
    const listening = await open(name);
    const heard: InvalidationEvent[] = [];
    listening.subscribe((event) => heard.push(event));

    for (let i = 0; i < 20; i += 1) await publisher.publish({ kind: 'workspace_changed', workspaceId: `ws-${i}` });
    await eventually(() => heard.length >= 20, 'all twenty events');
    await new Promise((r) => setTimeout(r, 1000)); // five polls

    expect(heard.filter((e) => e.kind === 'events_missed')).toEqual([]);
    expect(heard).toHaveLength(20);
  });

  it('ignores what was published before the replica started', async () => {
    const name = `test:${randomUUID()}:invalidations`;
    const publisher = await open(name);
    await publisher.publish({ kind: 'api_key_revoked', keyId: 'old' });
    const late = await open(name);
    const heard: InvalidationEvent[] = [];
    late.subscribe((event) => heard.push(event));
    await new Promise((r) => setTimeout(r, 800));

    expect(heard).toEqual([]);
  });
});
