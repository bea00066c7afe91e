import { CLUSTER_RETRY_MS, signUp, startTestCluster, type TestCluster } from '../support/cluster';

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

describe('sign-up, login and the current user', () => {
  it('signs up a workspace whose admin can log in and read who they are', async () => {
    const owner = await signUp(t.api);
    expect(owner.user).toMatchObject({ email: owner.user.email, firstName: 'Ada', lastName: 'Lovelace' });
    expect(owner.user.id).toMatch(/^usr_/);
    expect(owner.user.workspaceId).toMatch(/^ws_/);

    const login = await t.api.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
    expect(login.status).toBe(200);
    expect(Object.keys(login.body).sort()).toEqual(['access', 'refresh', 'user']);

    const me = await t.api.get('/api/auth/me/', { token: login.body.access });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(owner.user);
  });

  it('answers a wrong password and an unknown email with the same 401 body', async () => {
    const owner = await signUp(t.api);
    const wrongPassword = await t.api.post('/api/auth/login/', { email: owner.user.email, password: 'not-the-password' });
    const unknownEmail = await t.api.post('/api/auth/login/', { email: 'nobody-here@example.com', password: 'not-the-password' });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(wrongPassword.body).toEqual(unknownEmail.body);
    expect(wrongPassword.body.detail).toEqual(expect.any(String));
  });

  it('lists every failing sign-up field at once with 422', async () => {
    const response = await t.api.post('/api/auth/signup/', { email: 'not-an-email', password: 'short' });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body)).toEqual(expect.arrayContaining(['workspaceName', 'email', 'password', 'firstName', 'lastName']));
    for (const messages of Object.values(response.body)) expect(messages).toEqual([expect.any(String)]);
  });

  it('refuses a second sign-up with an email already in use', async () => {
    const owner = await signUp(t.api);
    const again = await signUp(t.api, { email: owner.user.email }).catch((error: Error) => error.message);
    expect(again).toMatch(/^sign-up failed: 422/);
  });
});

describe('refresh tokens', () => {
  it('rotates the refresh token on every use and returns the new one', async () => {
    const owner = await signUp(t.api);
    const first = await t.api.post('/api/auth/token/refresh/', { refresh: owner.refresh });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['access', 'refresh']);
    expect(first.body.refresh).not.toEqual(owner.refresh);

    const me = await t.api.get('/api/auth/me/', { token: first.body.access });
    expect(me.status).toBe(200);

    const second = await t.api.post('/api/auth/token/refresh/', { refresh: first.body.refresh });
    expect(second.status).toBe(200);
  });

  it('treats a rotated token presented again as theft and revokes the whole family', async () => {
    const owner = await signUp(t.api);
    const rotated = await t.api.post('/api/auth/token/refresh/', { refresh: owner.refresh });
    expect(rotated.status).toBe(200);

    const replay = await t.api.post('/api/auth/token/refresh/', { refresh: owner.refresh });
    expect(replay.status).toBe(401);
    expect(replay.headers['www-authenticate']).toMatch(/^Bearer/);

    const newestAfterTheft = await t.api.post('/api/auth/token/refresh/', { refresh: rotated.body.refresh });
    expect(newestAfterTheft.status).toBe(401);
  });

  it('refuses a garbled refresh token with 401', async () => {
    const response = await t.api.post('/api/auth/token/refresh/', { refresh: 'rt_nothing.garbage' });
    expect(response.status).toBe(401);
  });
});

describe('bearer credentials', () => {
  const cases: [string, string | undefined][] = [
    ['no Authorization header', undefined],
    ['a garbled token', 'Bearer abc.def.ghi'],
    ['a non-bearer scheme', 'Basic dXNlcjpwYXNz'],
    [
      'an unsigned token (alg none)',
      `Bearer ${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"usr_x","wid":"ws_x"}').toString('base64url')}.`,
    ],
    ['an unknown API key', 'Bearer crm_abcdefgh_notarealkeynotarealkeynotarealkeynotarea'],
  ];
  it.each(cases)('answers %s with 401, WWW-Authenticate and a detail', async (_name, authorization) => {
    const response = await t.api.get('/api/auth/me/', { headers: authorization ? { authorization } : {} });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });
});
