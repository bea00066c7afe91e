import { randomUUID } from 'node:crypto';
import type { IdempotencyStore, StoredAnswer } from './idempotency-store';
import { MemoryIdempotencyStore } from './memory-idempotency-store';
import { RedisIdempotencyStore } from './redis-idempotency-store';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const answer: StoredAnswer = { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('{}').toString('base64') };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same contract for both stores; the Redis one needs Redis on REDIS_URL (default 127.0.0.1:6379). */
describe.each([
  ['memory', () => new MemoryIdempotencyStore()],
  ['redis', () => RedisIdempotencyStore.open(REDIS_URL, `crm-spec-${randomUUID()}:`)],
])('the %s idempotency store', (_name, open: () => IdempotencyStore) => {
  let store: IdempotencyStore;
  beforeEach(() => {
    store = open();
  });
  afterEach(() => store.close());

  it('lets exactly one of many concurrent claims of a key through', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => store.claim('ws:k', 'f1', 10_000)));
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(results.filter((r) => r?.state === 'running')).toHaveLength(19);
  });

  it('answers the kept answer with its fingerprint once completed', async () => {
    await store.claim('ws:k', 'f1', 10_000);
    await store.complete('ws:k', 'f1', answer, 10_000);
    expect(await store.claim('ws:k', 'f2', 10_000)).toEqual({ state: 'done', fingerprint: 'f1', answer });
  });

  it('frees a key on release and when its claim lapses', async () => {
    await store.claim('ws:a', 'f1', 10_000);
    await store.release('ws:a');
    expect(await store.claim('ws:a', 'f1', 10_000)).toBeNull();
    await store.claim('ws:b', 'f1', 50);
    await sleep(120);
    expect(await store.claim('ws:b', 'f1', 10_000)).toBeNull();
  });

  it('renews a running claim of the same request only', async () => {
    // Margins of half a second and more: a loaded machine's timers fire late, never early.
    await store.claim('ws:a', 'f1', 1_000);
    await sleep(500);
    await store.renew('ws:a', 'f1', 3_000);
    await sleep(700); // past the first lease, inside the renewed one
    expect(await store.claim('ws:a', 'f1', 10_000)).toEqual({ state: 'running', fingerprint: 'f1' });

    await store.claim('ws:b', 'f1', 100);
    await store.renew('ws:b', 'f2', 10_000); // another request's fingerprint: not its claim
    await store.claim('ws:c', 'f1', 10_000);
    await store.complete('ws:c', 'f1', answer, 100);
    await store.renew('ws:c', 'f1', 10_000); // completed: a late renewal keeps no answer longer
    await sleep(150);
    expect(await store.claim('ws:b', 'f1', 10_000)).toBeNull();
    expect(await store.claim('ws:c', 'f1', 10_000)).toBeNull();
  });
});
