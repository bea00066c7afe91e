import autocannon from 'autocannon';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit, operatorCli } from '../support/operator-cli';
import { PrivateRedis } from '../support/private-redis';

// Faults at the edge, each bounded in requests and time: Redis stopping and returning under load,
// a backing service restarting under load, and a burst at twice the plan limit across two replicas.

let redis: PrivateRedis;
let t: TestCluster;
let owner: SignedUp;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  t = await startTestCluster({ gateways: 2, withWorkers: false, redisUrl: redis.url });
  owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
  await redis?.kill();
});

/** Sends `count` sequential requests, alternating replicas, and returns their statuses. */
async function statuses(count: number, token: string, pauseMs = 0): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i += 1) {
    seen.push((await t.gateways[i % 2]!.get('/api/auth/me/', { token })).status);
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
  }
  return seen;
}

/** Waits until both replicas count in Redis again: their answers show the owner's whole plan, not half of it. */
async function countingSharedAgain(): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const limits = await Promise.all(
      t.gateways.map(async (g) => (await g.get('/api/auth/me/', { token: owner.access })).headers['x-ratelimit-limit']),
    );
    if (limits.every((l) => l === '100000')) return;
    if (Date.now() > deadline) throw new Error(`the replicas still count alone 30 s after Redis came back (limits ${limits.join(', ')})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('Redis stops and returns under load', () => {
  it('keeps serving on the local fallback limiter, headers included, and keeps serving after Redis returns', async () => {
    expect(new Set(await statuses(20, owner.access))).toEqual(new Set([200]));

    await new Promise((r) => setTimeout(r, 2500)); // two heartbeats: each replica has seen the other in Redis
    await redis.kill();
    try {
      const during = await Promise.all([statuses(30, owner.access, 20), statuses(30, owner.access, 20)]);
      expect(new Set(during.flat())).toEqual(new Set([200]));
      const probe = await t.api.get('/api/auth/me/', { token: owner.access });
      expect(probe.headers['x-ratelimit-limit']).toBe('50000'); // this replica's half of the plan while Redis is away
    } finally {
      await redis.resume();
      await countingSharedAgain();
    }
    expect(new Set(await statuses(20, owner.access))).toEqual(new Set([200]));
  });

  it('while Redis is away, each of two replicas grants only its half of the plan, with the headers on every answer', async () => {
    const small = await signUp(t.api);
    const changed = await operatorCli(t.cluster, [
      'change-plan',
      '--workspace',
      small.user.workspaceId,
      '--plan',
      'enterprise',
      '--rate-limit',
      '10',
    ]);
    expect(changed.code).toBe(0);
    await redis.kill();
    try {
      for (const gateway of t.gateways) {
        const answers = [];
        for (let i = 0; i < 7; i += 1) answers.push(await gateway.get('/api/auth/me/', { token: small.access }));
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
        for (const answer of answers) {
          expect(answer.headers['x-ratelimit-limit']).toBe('5');
          expect(answer.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
          expect(answer.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
        }
      }
    } finally {
      await redis.resume();
      await countingSharedAgain();
    }
  });

  it('counts in Redis again once it is back: two replicas share one budget', async () => {
    const small = await signUp(t.api);
    expect(
      (await operatorCli(t.cluster, ['change-plan', '--workspace', small.user.workspaceId, '--plan', 'enterprise', '--rate-limit', '10']))
        .code,
    ).toBe(0);
    const first = await t.api.get('/api/auth/me/', { token: small.access });
    if (Number(first.headers['x-ratelimit-reset']) - Date.now() / 1000 < 8) await new Promise((r) => setTimeout(r, 9000));
    const seen = await statuses(14, small.access);
    expect(seen.filter((s) => s === 200).length).toBeLessThanOrEqual(10);
    expect(seen).toContain(429);
  });
});

describe('a backing service restarts under load', () => {
  it('answers 503 with a clear body while auth restarts, never hangs, and recovers', async () => {
    const seen: number[] = [];
    const bodies: unknown[] = [];
    let running = true;
    const load = (async () => {
      while (running) {
        const response = await t.gateways[seen.length % 2]!.get('/api/auth/me/', { token: owner.access });
        seen.push(response.status);
        if (response.status >= 500) bodies.push(response.body);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await new Promise((r) => setTimeout(r, 500));
    await t.cluster.restart('auth', 'SIGKILL');
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await load;

    expect(seen.length).toBeGreaterThan(5);
    expect(seen.every((s) => s === 200 || s === 503 || s === 429)).toBe(true);
    for (const body of bodies) expect(body).toEqual({ detail: expect.any(String) });
    // Recovers: within a few seconds of auth answering its health check, calls succeed again.
    const deadline = Date.now() + 20_000;
    let after = await t.api.get('/api/auth/me/', { token: owner.access });
    while (after.status !== 200 && Date.now() < deadline) {
      expect(after.status).toBe(503);
      await new Promise((r) => setTimeout(r, 250));
      after = await t.api.get('/api/auth/me/', { token: owner.access });
    }
    expect(after.status).toBe(200);
  });
});

describe('a burst at twice the plan limit across two replicas', () => {
  it('lets the workspace have exactly its limit in the window, leaves others alone, and answers nothing 5xx', async () => {
    const limit = 60;
    const busy = await signUp(t.api);
    const bystander = await signUp(t.api);
    expect(
      (
        await operatorCli(t.cluster, [
          'change-plan',
          '--workspace',
          busy.user.workspaceId,
          '--plan',
          'enterprise',
          '--rate-limit',
          String(limit),
        ])
      ).code,
    ).toBe(0);
    // Start the burst early in a window so that it fits in one.
    const probe = await t.api.get('/api/auth/me/', { token: bystander.access });
    const secondsLeft = Number(probe.headers['x-ratelimit-reset']) - Date.now() / 1000;
    if (secondsLeft < 20) await new Promise((r) => setTimeout(r, (secondsLeft + 0.5) * 1000));

    const burst = (url: string) =>
      new Promise<autocannon.Result>((resolve, reject) => {
        autocannon(
          {
            url: `${url}/api/auth/me/`,
            headers: { authorization: `Bearer ${busy.access}` },
            amount: limit, // each replica sends the whole limit: twice the limit in all
            connections: 8,
            tlsOptions: { ca: t.cluster.ca },
          } as autocannon.Options,
          (error, result) => (error ? reject(error) : resolve(result)),
        );
      });
    const [a, b] = await Promise.all(t.cluster.gateways.map((g) => burst(g.url)));
    const count = (result: autocannon.Result, code: string) =>
      (result.statusCodeStats as Record<string, { count: number }> | undefined)?.[code]?.count ?? 0;
    const ok = count(a!, '200') + count(b!, '200');
    const refused = count(a!, '429') + count(b!, '429');
    expect(ok).toBe(limit);
    expect(refused).toBe(limit);
    for (const result of [a, b]) {
      for (const code of Object.keys(result.statusCodeStats ?? {})) expect(Number(code)).toBeLessThan(500);
      expect(result.errors).toBe(0);
    }
    expect((await t.api.get('/api/auth/me/', { token: bystander.access })).status).toBe(200);
  });
});
