import { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { startForwardingProxy, type ForwardingProxy } from '../support/forwarding-proxy';
import { liftRateLimit, operatorCli } from '../support/operator-cli';

let t: TestCluster;
/** An ingress in front of the first gateway, which trusts it (and only it) to name the client. */
let proxy: ForwardingProxy;
const clients: ApiClient[] = [];
let nextAddress = 10;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 2, withWorkers: false, env: { TRUSTED_PROXIES: '127.0.0.1/32' } });
  proxy = await startForwardingProxy(t.cluster.gateways[0]!.url, t.cluster.ca);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await proxy?.close();
  await t?.stop();
});

/** A client machine of its own (a fresh loopback address), reaching `url`: the proxy unless told otherwise. */
function clientMachine(url = proxy.url): ApiClient {
  const client = new ApiClient(url, t.cluster.ca, undefined, `127.0.0.${(nextAddress += 1)}`);
  clients.push(client);
  return client;
}

const badLogin = (client: ApiClient, email: string, headers: Record<string, string> = {}) =>
  client.post('/api/auth/login/', { email, password: 'not-the-password' }, { headers });

/** Waits out the current window when it ends within `marginSeconds`, so a test's burst fits in one window. */
async function freshWindow(owner: SignedUp, marginSeconds = 8): Promise<void> {
  const probe = await t.api.get('/api/auth/me/', { token: owner.access });
  const reset = Number(probe.headers['x-ratelimit-reset']);
  const secondsLeft = reset - Date.now() / 1000;
  if (secondsLeft < marginSeconds) await new Promise((r) => setTimeout(r, (secondsLeft + 0.5) * 1000));
}

async function enterpriseWorkspace(limit: number): Promise<SignedUp> {
  const owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId, limit);
  return owner;
}

describe('per-plan rate limits', () => {
  it('puts the three X-RateLimit headers on every response, errors included', async () => {
    const owner = await signUp(t.api);
    const ok = await t.api.get('/api/auth/me/', { token: owner.access });
    const notFound = await t.api.get('/api/no-such-thing/', { token: owner.access });
    const unauthenticated = await t.api.get('/api/auth/me/');
    for (const response of [ok, notFound, unauthenticated]) {
      expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
      expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      expect(Number(response.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
    }
    expect(ok.headers['x-ratelimit-limit']).toBe('100'); // a new workspace is on the starter plan
  });

  it('shares one budget across two gateway replicas and answers 429 with Retry-After past it', async () => {
    const owner = await enterpriseWorkspace(12);
    await freshWindow(owner);
    const first = await t.api.get('/api/auth/me/', { token: owner.access });
    expect(first.headers['x-ratelimit-limit']).toBe('12');
    const used = 12 - Number(first.headers['x-ratelimit-remaining']);

    const statuses: number[] = [];
    for (let i = used; i < 12; i += 1) statuses.push((await t.gateways[i % 2]!.get('/api/auth/me/', { token: owner.access })).status);
    expect(statuses.every((s) => s === 200)).toBe(true);

    const refusedA = await t.gateways[0]!.get('/api/auth/me/', { token: owner.access });
    const refusedB = await t.gateways[1]!.get('/api/auth/me/', { token: owner.access });
    for (const refused of [refusedA, refusedB]) {
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ detail: expect.any(String) });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    }
  });

  it('counts users and API keys of a workspace against one budget, and leaves other workspaces alone', async () => {
    const owner = await enterpriseWorkspace(6);
    const bystander = await signUp(t.api);
    const key = (await t.api.post('/api/settings/api-keys/', { name: 'k' }, { token: owner.access })).body.key as string;
    await freshWindow(owner);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1)
      statuses.push((await t.gateways[i % 2]!.get('/api/auth/me/', { token: i % 2 ? key : owner.access })).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect((await t.api.get('/api/auth/me/', { token: bystander.access })).status).toBe(200);
  });

  it('carries a changed plan on the very next request, on both gateways, for tokens and API keys alike', async () => {
    const owner = await signUp(t.api);
    const key = (await t.api.post('/api/settings/api-keys/', { name: 'plan probe' }, { token: owner.access })).body.key as string;
    const limits = async () => {
      const seen: string[] = [];
      for (const gateway of t.gateways)
        for (const token of [owner.access, key]) seen.push((await gateway.get('/api/auth/me/', { token })).headers['x-ratelimit-limit']!);
      return seen;
    };
    expect(await limits()).toEqual(['100', '100', '100', '100']); // both replicas now hold the starter plan in their caches
    for (const [args, limit] of [
      [['--plan', 'business'], '600'],
      [['--plan', 'growth'], '300'],
      [['--plan', 'enterprise', '--rate-limit', '5000'], '5000'],
    ] as const) {
      const changed = await operatorCli(t.cluster, ['change-plan', '--workspace', owner.user.workspaceId, ...args]);
      expect(changed.code).toBe(0);
      expect(await limits()).toEqual([limit, limit, limit, limit]);
    }
  });

  it('slows password guessing on login per email', async () => {
    const owner = await signUp(t.api);
    const statuses: number[] = [];
    for (let i = 0; i < 25; i += 1)
      statuses.push((await t.gateways[i % 2]!.post('/api/auth/login/', { email: owner.user.email, password: `guess-${i}` })).status);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
  });
});

describe('the client behind a trusted proxy (TRUSTED_PROXIES)', () => {
  it("does not let one client's bad logins through the proxy lock out another client of the same proxy", async () => {
    const attacker = clientMachine();
    const statuses: number[] = [];
    for (let i = 0; i < 22; i += 1) statuses.push((await badLogin(attacker, `nobody-${i}@example.com`)).status);
    expect(statuses.slice(-1)).toEqual([429]);

    const bystander = clientMachine();
    const owner = await signUp(bystander);
    const login = await bystander.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
    expect(login.status).toBe(200);
  });

  it('does not let guesses at an account from one address lock its owner out from another', async () => {
    const owner = await signUp(clientMachine());
    const attacker = clientMachine();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await badLogin(attacker, owner.user.email)).status);
    expect(statuses).toContain(429);

    const login = await clientMachine().post('/api/auth/login/', { email: owner.user.email, password: owner.password });
    expect(login.status).toBe(200);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const direct = clientMachine(t.cluster.gateways[0]!.url);
    const statuses: number[] = [];
    for (let i = 0; i < 22; i += 1)
      statuses.push((await badLogin(direct, `nobody-${i}@example.com`, { 'x-forwarded-for': `203.0.113.${i}` })).status);
    expect(statuses.slice(-1)).toEqual([429]);
  });

  it('ignores the addresses a client puts in X-Forwarded-For itself, before the proxy appends its own', async () => {
    const forger = clientMachine();
    const statuses: number[] = [];
    for (let i = 0; i < 22; i += 1)
      statuses.push((await badLogin(forger, `nobody-${i}@example.com`, { 'x-forwarded-for': `203.0.113.${i}` })).status);
    expect(statuses.slice(-1)).toEqual([429]);
  });
});
