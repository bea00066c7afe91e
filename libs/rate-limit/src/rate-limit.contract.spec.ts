import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger } from '@crm/observability';
import { openRateLimitCounter } from './open-rate-limit';
import { openRedisConnection } from './redis-connection';
import type { InvalidationEvent, RateLimitCounter, RateLimitLocation } from './port';
import { openInvalidationChannel } from './revocation-channel';

jest.setTimeout(30_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const UNREACHABLE_REDIS_URL = 'redis://127.0.0.1:1';
const RUN = randomUUID().slice(0, 8);
const logger = createLogger('rate-limit-contract', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });

const locations: { name: string; location: RateLimitLocation }[] = [
  { name: 'memory', location: { kind: 'memory' } },
  { name: 'redis', location: { kind: 'redis', url: REDIS_URL, keyPrefix: `test-${RUN}:rate` } },
];

async function requireRedis(location: RateLimitLocation): Promise<void> {
  if (location.kind !== 'redis') return;
  const probe = openRedisConnection(location.url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    await probe.ping();
  } catch (err) {
    throw new Error(
      `Redis is not reachable at ${location.url} (${(err as Error).message}). Start it with \`redis-server --daemonize yes --port 6379 --save "" --appendonly no\` (or set REDIS_URL).`,
    );
  } finally {
    probe.disconnect();
  }
}

async function consumeTimes(counter: RateLimitCounter, times: number, key: string, limit: number, windowSeconds: number) {
  const decisions = [];
  for (let i = 0; i < times; i++) decisions.push(await counter.consume(key, limit, windowSeconds));
  return decisions;
}

async function eventually(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(locations)('$name rate-limit counter', ({ name, location }) => {
  let counter: RateLimitCounter;
  const key = (purpose: string): string => `${name}-${purpose}-${randomUUID()}`;

  beforeAll(async () => {
    await requireRedis(location);
    counter = await openRateLimitCounter(location, logger);
  });

  afterAll(async () => {
    await counter?.close();
  });

  it('allows exactly the limit in a window, then refuses with a retry-after', async () => {
    const decisions = await consumeTimes(counter, 6, key('limit'), 5, 60);

    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions[5].retryAfterSeconds).toBeGreaterThan(0);
    expect(decisions[5].retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('counts remaining down and puts the reset inside the window', async () => {
    const before = Math.floor(Date.now() / 1000);
    const decisions = await consumeTimes(counter, 4, key('headers'), 3, 60);
    const after = Math.ceil(Date.now() / 1000);

    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions.map((d) => d.limit)).toEqual([3, 3, 3, 3]);
    expect(decisions.slice(0, 3).map((d) => d.retryAfterSeconds)).toEqual([0, 0, 0]);
    for (const decision of decisions) {
      expect(decision.resetAt).toBeGreaterThan(before);
      expect(decision.resetAt).toBeLessThanOrEqual(after + 60);
    }
  });

  it('keeps different keys independent', async () => {
    const first = key('first');
    await consumeTimes(counter, 2, first, 2, 60);

    expect((await counter.consume(first, 2, 60)).allowed).toBe(false);
    expect((await counter.consume(key('second'), 2, 60)).allowed).toBe(true);
  });

  it('starts a fresh budget in the next window', async () => {
    const windowed = key('window');
    await consumeTimes(counter, 2, windowed, 1, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));

    expect((await counter.consume(windowed, 1, 1)).allowed).toBe(true);
  });

  it('reports its mode', () => {
    expect(counter.mode()).toBe(location.kind === 'redis' ? 'shared' : 'local');
  });
});

describe('redis rate-limit counters on one Redis', () => {
  const location: RateLimitLocation = { kind: 'redis', url: REDIS_URL, keyPrefix: `test-${RUN}:shared` };
  const replicas: RateLimitCounter[] = [];

  beforeAll(async () => {
    await requireRedis(location);
    replicas.push(await openRateLimitCounter(location, logger), await openRateLimitCounter(location, logger));
  });

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
  });

  it('share one budget between replicas', async () => {
    const key = `workspace-${randomUUID()}`;
    const [a, b] = replicas;
    const decisions = [
      await a.consume(key, 4, 60),
      await b.consume(key, 4, 60),
      await a.consume(key, 4, 60),
      await b.consume(key, 4, 60),
      await a.consume(key, 4, 60),
    ];

    expect(decisions.map((d) => d.remaining)).toEqual([3, 2, 1, 0, 0]);
    expect(decisions[4].allowed).toBe(false);
  });
});

describe('redis rate-limit counter while Redis is unreachable', () => {
  const logLines: string[] = [];
  const capturingLogger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    }),
  );
  let counter: RateLimitCounter;

  beforeAll(async () => {
    counter = await openRateLimitCounter({ kind: 'redis', url: UNREACHABLE_REDIS_URL, keyPrefix: `test-${RUN}:down` }, capturingLogger);
  });

  afterAll(async () => {
    await counter.close();
  });

  it('still answers, counting in this process', async () => {
    const decisions = await consumeTimes(counter, 4, 'workspace-1', 3, 60);

    expect(counter.mode()).toBe('local');
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
  });

  it('logs the fallback once, however many reconnects fail', async () => {
    const fallbackLines = (): string[] => logLines.filter((line) => line.includes('counting rate limits in this replica'));
    await eventually(() => fallbackLines().length > 0, 'the fallback log line');
    await new Promise((resolve) => setTimeout(resolve, 700));

    expect(fallbackLines()).toHaveLength(1);
  });
});

describe.each(locations)('$name invalidation channel', ({ location }) => {
  it('carries an event published on one replica to a subscriber on another', async () => {
    await requireRedis(location);
    const scoped: RateLimitLocation = location.kind === 'redis' ? { ...location, keyPrefix: `test-${RUN}-${randomUUID()}` } : location;
    const publishing = await openInvalidationChannel(scoped, logger);
    // Without Redis there is one process, hence one channel to publish and hear on.
    const listening = location.kind === 'redis' ? await openInvalidationChannel(scoped, logger) : publishing;
    const heard: InvalidationEvent[] = [];
    const unsubscribe = listening.subscribe((event) => heard.push(event));
    try {
      await publishing.publish({ kind: 'api_key_revoked', keyId: 'key-1' });
      await publishing.publish({ kind: 'workspace_changed', workspaceId: 'ws-1' });
      await eventually(() => heard.length === 2, 'both invalidations');

      expect(heard).toEqual([
        { kind: 'api_key_revoked', keyId: 'key-1' },
        { kind: 'workspace_changed', workspaceId: 'ws-1' },
      ]);
    } finally {
      unsubscribe();
      await publishing.close();
      if (listening !== publishing) await listening.close();
    }
  });

  it('stops calling a handler once it unsubscribed', async () => {
    await requireRedis(location);
    const scoped: RateLimitLocation = location.kind === 'redis' ? { ...location, keyPrefix: `test-${RUN}-${randomUUID()}` } : location;
    const channel = await openInvalidationChannel(scoped, logger);
    const kept: InvalidationEvent[] = [];
    const dropped: InvalidationEvent[] = [];
    channel.subscribe((event) => kept.push(event));
    channel.subscribe((event) => dropped.push(event))();
    try {
      await channel.publish({ kind: 'api_key_revoked', keyId: 'key-2' });
      await eventually(() => kept.length === 1, 'the invalidation');

      expect(dropped).toEqual([]);
    } finally {
      await channel.close();
    }
  });
});
