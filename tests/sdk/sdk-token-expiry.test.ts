/**
 * The SDK's session on a cluster whose access tokens live one second (ACCESS_TOKEN_TTL_SECONDS=1,
 * plus the gateway's 5 s clock tolerance): an expired access token is refreshed once for concurrent
 * calls, the refresh token rotates, and a session whose refresh token was reused elsewhere (the
 * family revoked) ends with a CrmApiError 401. A cluster of its own, so that the main SDK suite's
 * sessions do not refresh every few seconds.
 */
import { Agent } from 'undici';
import { CrmClient, type FetchLike, type Tokens } from '../../clients/typescript/src';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';

let t: TestCluster;
let dispatcher: Agent;
let fetchWithCa: FetchLike;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false, env: { ACCESS_TOKEN_TTL_SECONDS: '1' } });
  dispatcher = new Agent({ connect: { ca: t.cluster.ca } });
  fetchWithCa = (request) => fetch(request, { dispatcher } as unknown as RequestInit);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await dispatcher?.close();
  await t?.stop();
});

/** Waits until the gateway refuses the access token. */
async function expired(access: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await t.api.get('/api/auth/me/', { token: access })).status !== 401) {
    if (Date.now() > deadline) throw new Error('the access token did not expire in 30 s');
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('an SDK session with short-lived access tokens', () => {
  it('refreshes an expired access token once for five concurrent calls, and rotates the refresh token', async () => {
    const owner = await signUp(t.api);
    const pairs: Tokens[] = [];
    const crm = await CrmClient.login({
      baseUrl: t.api.baseUrl,
      fetch: fetchWithCa,
      email: owner.user.email,
      password: owner.password,
      onTokens: (pair) => void pairs.push(pair),
    });
    expect(pairs).toHaveLength(1); // the login's
    await expired(pairs[0]!.access);

    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => crm.auth.me()));
    expect(answers.map((me) => me.email)).toEqual(Array(5).fill(owner.user.email));
    expect(pairs).toHaveLength(2);
    expect(crm.auth.tokens).toEqual(pairs[1]);
    expect(pairs[1]!.refresh).not.toBe(pairs[0]!.refresh);
  });

  it('ends with a 401 once its refresh token was reused elsewhere, which revokes the whole login', async () => {
    const owner = await signUp(t.api);
    const crm = await CrmClient.login({ baseUrl: t.api.baseUrl, fetch: fetchWithCa, email: owner.user.email, password: owner.password });
    const stolen = crm.auth.tokens!;
    expect((await t.api.post('/api/auth/token/refresh/', { refresh: stolen.refresh })).status).toBe(200);
    await expired(stolen.access);
    // The SDK's refresh presents the token the thief already rotated: a reuse, so every token of the login is revoked.
    await expect(crm.auth.me()).rejects.toMatchObject({ name: 'CrmApiError', status: 401 });
    expect(crm.auth.tokens).toBeUndefined();
  });
});
