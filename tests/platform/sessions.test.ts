/**
 * Sessions end: logout by refresh token, logout everywhere, and an admin ending a user's sessions,
 * through HTTPS on both gateway replicas. Session endpoints share a budget of 20 calls a minute per
 * client address, so the suite makes few of them.
 */
import type { ApiClient } from '../support/api-client';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { waitUntil } from '../support/sibling-process';

let t: TestCluster;
let g1: ApiClient;
let g2: ApiClient;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 2, withWorkers: false });
  [g1, g2] = t.gateways as [ApiClient, ApiClient];
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

const me = async (gateway: ApiClient, token: string) => (await gateway.get('/api/auth/me/', { token })).status;
const refresh = async (token: string) => (await g1.post('/api/auth/token/refresh/', { refresh: token })).status;

async function logIn(owner: SignedUp): Promise<{ access: string; refresh: string }> {
  const response = await g2.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
  expect(response.status).toBe(200);
  return response.body;
}

describe('logout', () => {
  it('ends the refresh token family it is given, and only that one; unknown tokens get 204 too', async () => {
    const owner = await signUp(g1);
    const other = await logIn(owner);
    const rotated = await g1.post('/api/auth/token/refresh/', { refresh: owner.refresh });
    expect(rotated.status).toBe(200);

    // The first token of the family, already rotated: logging out with it still ends the family.
    const out = await g2.post('/api/auth/logout/', { refresh: owner.refresh });
    expect(out.status).toBe(204);
    expect(out.text).toBe('');
    expect(await refresh(rotated.body.refresh)).toBe(401);
    expect(await refresh(other.refresh)).toBe(200);

    expect((await g1.post('/api/auth/logout/', { refresh: 'rt_unknown.token' })).status).toBe(204);
    const missing = await g1.post('/api/auth/logout/', {});
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ refresh: [expect.any(String)] });
  });
});

describe('logout everywhere', () => {
  it('ends every session of the caller: refresh tokens at once, access tokens on the next request through either gateway', async () => {
    const owner = await signUp(g1);
    const second = await logIn(owner);
    for (const gateway of [g1, g2]) for (const token of [owner.access, second.access]) expect(await me(gateway, token)).toBe(200);

    const ended = await g1.post('/api/auth/logout-all/', undefined, { token: owner.access });
    expect(ended.status).toBe(204);
    const endedAt = Date.now();
    const answer = await g1.get('/api/auth/me/', { token: second.access });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ detail: 'Session has ended.' });
    // The other replica hears it on the invalidation channel: allow for delivery, report how long it took.
    await waitUntil('the second gateway to refuse the ended session', async () => (await me(g2, owner.access)) === 401, 10_000);
    console.log(`logout-all reached the other gateway within ${Date.now() - endedAt} ms`);
    expect(await me(g2, second.access)).toBe(401);
    expect(await refresh(owner.refresh)).toBe(401);
    expect(await refresh(second.refresh)).toBe(401);

    const fresh = await logIn(owner);
    expect(await me(g1, fresh.access)).toBe(200);
    expect(await me(g2, fresh.access)).toBe(200);
  });

  it('refuses an API key with 403 and ends nothing', async () => {
    const owner = await signUp(g1);
    const created = await g1.post('/api/settings/api-keys/', { name: 'ci' }, { token: owner.access });
    expect(created.status).toBe(201);
    const refused = await g2.post('/api/auth/logout-all/', undefined, { token: created.body.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ detail: expect.any(String) });
    expect(await me(g1, owner.access)).toBe(200);
    expect(await me(g2, owner.access)).toBe(200);
  });
});

describe("an admin ending a user's sessions", () => {
  it("ends the sessions of a user of the workspace; another workspace's user is 404 and keeps theirs", async () => {
    const admin = await signUp(g1);
    const stranger = await signUp(g2);
    const foreign = await g1.post(`/api/settings/users/${stranger.user.id}/logout/`, undefined, { token: admin.access });
    expect(foreign.status).toBe(404);
    expect(await me(g2, stranger.access)).toBe(200);

    // The admin ends their own sessions here (a member's: the auth unit suite; the route walk: members-and-roles.test.ts).
    const ended = await g2.post(`/api/settings/users/${admin.user.id}/logout/`, undefined, { token: admin.access });
    expect(ended.status).toBe(204);
    expect(await me(g2, admin.access)).toBe(401);
    await waitUntil('the other gateway to refuse the ended session', async () => (await me(g1, admin.access)) === 401, 10_000);
    expect(await refresh(admin.refresh)).toBe(401);
  });
});
