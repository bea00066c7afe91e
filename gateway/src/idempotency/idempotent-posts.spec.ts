import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo, Server } from 'node:net';
import express, { type RequestHandler } from 'express';
import { request } from 'undici';
import { createLogger } from '@crm/observability';
import type { IdempotencyStore } from './idempotency-store';
import {
  idempotentPosts,
  MAX_ANSWER_BYTES,
  oneTimeSecret,
  WITHHELD_SECRET_DETAIL,
  type IdempotentPosts,
  type IdempotentPostsOptions,
} from './idempotent-posts';
import { MemoryIdempotencyStore } from './memory-idempotency-store';

interface Harness {
  base: string;
  post(
    path: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Record<string, unknown>; text: string }>;
  runs: () => number;
  guard: IdempotentPosts;
  close(): Promise<void>;
}

/** An app with a fake caller (header x-workspace), the guard, and `handler` on every POST. */
async function harness(
  handler: RequestHandler,
  store: IdempotencyStore = new MemoryIdempotencyStore(),
  options: IdempotentPostsOptions = {},
): Promise<Harness> {
  let runs = 0;
  const guard = idempotentPosts(store, createLogger('test', { level: 'silent' }), (req) => req.path.startsWith('/upload'), options);
  const app = express();
  app.use((req, res, next) => {
    const workspaceId = req.get('x-workspace') ?? 'ws_1';
    res.locals.caller = { workspaceId, actorId: 'usr_1', actorKind: 'user', plan: 'starter', rateLimitPerMinute: 0 };
    next();
  });
  app.use(guard.streamedUploads);
  app.use(express.json());
  app.use(guard.jsonPosts);
  app.post(/.*/, (req, res, next) => {
    runs++;
    handler(req, res, next);
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    async post(path, body, headers = {}) {
      const response = await request(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
    },
    runs: () => runs,
    guard,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** POSTs {} to /things with `key` and hangs up after `ms`, before the answer. */
async function hangUpAfter(ms: number, h: Harness, key: string): Promise<void> {
  const abandoned = request(`${h.base}/things`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: '{}',
    signal: AbortSignal.timeout(ms),
  });
  await expect(abandoned).rejects.toThrow();
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const created: RequestHandler = (req, res) =>
  void res
    .status(201)
    .location('/things/1')
    .json({ id: `t_${Math.random()}`, got: req.body });

describe('Idempotency-Key on POSTs', () => {
  let h: Harness;
  afterEach(() => h?.close());

  it('replays the first answer to a retry with the same key and body, without running it again', async () => {
    h = await harness(created);
    const first = await h.post('/things', { a: 1 }, { 'idempotency-key': 'k1' });
    const retry = await h.post('/things/', { a: 1 }, { 'idempotency-key': 'k1' });
    expect(first.status).toBe(201);
    expect(retry).toMatchObject({ status: 201, text: first.text });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.headers.location).toBe('/things/1');
    expect(retry.headers['content-type']).toMatch(/application\/json/);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(h.runs()).toBe(1);
  });

  it('answers 422 with a detail to the same key with another body, and runs nothing', async () => {
    h = await harness(created);
    await h.post('/things', { a: 1 }, { 'idempotency-key': 'k1' });
    const other = await h.post('/things', { a: 2 }, { 'idempotency-key': 'k1' });
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text).detail).toMatch(/different request/);
    expect(h.runs()).toBe(1);
  });

  it('answers 422 to the same key on another path', async () => {
    h = await harness(created);
    await h.post('/things', { a: 1 }, { 'idempotency-key': 'k1' });
    expect((await h.post('/others', { a: 1 }, { 'idempotency-key': 'k1' })).status).toBe(422);
  });

  it('answers 409 to a request arriving while the first with its key still runs', async () => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    h = await harness((_req, res) => void held.then(() => res.status(201).json({ ok: true })));
    const first = h.post('/things', { a: 1 }, { 'idempotency-key': 'k1' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await h.post('/things', { a: 1 }, { 'idempotency-key': 'k1' });
    finish();
    expect(second.status).toBe(409);
    expect(JSON.parse(second.text).detail).toMatch(/still in progress/);
    expect((await first).status).toBe(201);
    expect(h.runs()).toBe(1);
  });

  it('keeps the answer of a request whose client hung up, for its retry', async () => {
    h = await harness((_req, res) => void setTimeout(() => res.status(201).json({ id: 'late' }), 150));
    await hangUpAfter(50, h, 'k1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const retry = await h.post('/things', {}, { 'idempotency-key': 'k1' });
    expect(retry).toMatchObject({ status: 201, text: '{"id":"late"}' });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(h.runs()).toBe(1);
  });

  it('renews the claim of a request that runs past its lease: a retry meanwhile gets 409 and nothing runs twice', async () => {
    h = await harness((_req, res) => void setTimeout(() => res.status(201).json({ id: 'slow' }), 400), undefined, { claimMs: 90 });
    const first = h.post('/things', {}, { 'idempotency-key': 'k1' });
    await new Promise((resolve) => setTimeout(resolve, 250)); // the first lease (90 ms) is long over
    expect((await h.post('/things', {}, { 'idempotency-key': 'k1' })).status).toBe(409);
    expect((await first).status).toBe(201);
    expect(await h.post('/things', {}, { 'idempotency-key': 'k1' })).toMatchObject({ status: 201, text: '{"id":"slow"}' });
    expect(h.runs()).toBe(1);
  });

  it('lets a claim lapse within its lease once nothing renews it, as when its gateway died', async () => {
    const store = new MemoryIdempotencyStore();
    h = await harness(created, store, { claimMs: 90 });
    // The same request's claim, taken by a gateway that then died: nothing renews it.
    await store.claim(`ws_1:${sha256('k1')}`, sha256('POST\n/things\n{}'), 90);
    expect((await h.post('/things', {}, { 'idempotency-key': 'k1' })).status).toBe(409);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await h.post('/things', {}, { 'idempotency-key': 'k1' })).status).toBe(201);
  });

  it('settles, when asked at stop, the key of a request whose client hung up once it ends, and says how many are left', async () => {
    const store = new MemoryIdempotencyStore();
    h = await harness((_req, res) => void setTimeout(() => res.status(201).json({ id: 'late' }), 300), store);
    await hangUpAfter(50, h, 'k1');
    expect(await h.guard.settleOpen(10)).toBe(1);
    expect(await h.guard.settleOpen(5_000)).toBe(0);
    // Settled already: kept before settleOpen answered, not when a retry happens to come.
    expect(await store.claim(`ws_1:${sha256('k1')}`, 'probe', 1_000)).toMatchObject({ state: 'done', answer: { status: 201 } });
    expect(await h.guard.settleOpen(5_000)).toBe(0);
  });

  it('keeps 4xx answers but not 5xx ones: a retry after a 5xx runs again', async () => {
    h = await harness((_req, res) => void res.status(h.runs() === 1 ? 503 : 400).json({ detail: 'x' }));
    expect((await h.post('/things', {}, { 'idempotency-key': 'k1' })).status).toBe(503);
    expect((await h.post('/things', {}, { 'idempotency-key': 'k1' })).status).toBe(400);
    const replay = await h.post('/things', {}, { 'idempotency-key': 'k1' });
    expect(replay.status).toBe(400);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(h.runs()).toBe(2);
  });

  it('refuses a key over 255 characters with 400 and accepts one of 255', async () => {
    h = await harness(created);
    const tooLong = await h.post('/things', {}, { 'idempotency-key': 'k'.repeat(256) });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text).detail).toMatch(/255/);
    expect((await h.post('/things', {}, { 'idempotency-key': 'k'.repeat(255) })).status).toBe(201);
    expect(h.runs()).toBe(1);
  });

  it('keeps keys per workspace', async () => {
    h = await harness(created);
    await h.post('/things', { a: 1 }, { 'idempotency-key': 'k1', 'x-workspace': 'ws_1' });
    const elsewhere = await h.post('/things', { a: 2 }, { 'idempotency-key': 'k1', 'x-workspace': 'ws_2' });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.headers['idempotent-replayed']).toBeUndefined();
    expect(h.runs()).toBe(2);
  });

  it('runs every request without a key', async () => {
    h = await harness(created);
    await h.post('/things', { a: 1 });
    await h.post('/things', { a: 1 });
    expect(h.runs()).toBe(2);
  });

  it('keeps no answer carrying a one-time secret: a retry answers 409 with a detail and runs nothing', async () => {
    const store = new MemoryIdempotencyStore();
    const kept: string[] = [];
    const complete = store.complete.bind(store);
    store.complete = (key, fingerprint, answer, keepMs) => {
      kept.push(JSON.stringify(answer), Buffer.from(answer.body, 'base64').toString());
      return complete(key, fingerprint, answer, keepMs);
    };
    h = await harness((req, res) => oneTimeSecret(req, res, () => void res.status(201).json({ id: 'k_1', key: 'sk_live_s3cret' })), store);
    const first = await h.post('/things', {}, { 'idempotency-key': 'k1' });
    const retry = await h.post('/things', {}, { 'idempotency-key': 'k1' });
    expect(first).toMatchObject({ status: 201, text: expect.stringContaining('sk_live_s3cret') });
    expect(retry).toMatchObject({ status: 409, text: JSON.stringify({ detail: WITHHELD_SECRET_DETAIL }) });
    expect(h.runs()).toBe(1);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.join('\n')).not.toContain('sk_live_s3cret');
  });

  it('keeps the refusal of a route marked as carrying a one-time secret, which carries none', async () => {
    h = await harness((req, res) => oneTimeSecret(req, res, () => void res.status(422).json({ name: ['Required.'] })));
    const first = await h.post('/things', {}, { 'idempotency-key': 'k1' });
    const retry = await h.post('/things', {}, { 'idempotency-key': 'k1' });
    expect(retry).toMatchObject({ status: 422, text: first.text });
    expect(retry.headers['idempotent-replayed']).toBe('true');
  });

  it('does not keep an answer over 1 MB: a retry runs again', async () => {
    h = await harness((_req, res) => void res.status(200).json({ big: 'x'.repeat(MAX_ANSWER_BYTES) }));
    await h.post('/things', {}, { 'idempotency-key': 'k1' });
    const retry = await h.post('/things', {}, { 'idempotency-key': 'k1' });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(h.runs()).toBe(2);
  });

  it('answers 503 and runs nothing when the store cannot be reached', async () => {
    const broken: IdempotencyStore = {
      claim: () => Promise.reject(new Error('down')),
      renew: () => Promise.resolve(),
      complete: () => Promise.resolve(),
      release: () => Promise.resolve(),
      forgetAnswersHolding: () => Promise.resolve(0),
      close: () => Promise.resolve(),
    };
    h = await harness(created, broken);
    expect((await h.post('/things', {}, { 'idempotency-key': 'k1' })).status).toBe(503);
    expect(h.runs()).toBe(0);
  });

  it('keys streamed uploads on method and path, not on their unread body', async () => {
    h = await harness((req, res) => {
      req.resume();
      req.on('end', () => res.status(201).json({ uid: 'job_1' }));
    });
    await h.post('/upload', 'file one', { 'idempotency-key': 'k1', 'content-type': 'text/plain' });
    const retry = await h.post('/upload', 'file two', { 'idempotency-key': 'k1', 'content-type': 'text/plain' });
    expect(retry).toMatchObject({ status: 201, text: '{"uid":"job_1"}' });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(h.runs()).toBe(1);
  });
});
