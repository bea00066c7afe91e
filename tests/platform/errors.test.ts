import { connect } from 'node:net';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';

let t: TestCluster;
let owner: SignedUp;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 1, withWorkers: false });
  owner = await signUp(t.api);
  // Longer than the cluster's own wait for each process (90 s), twice (support/cluster.ts starts
  // once more when a process never reports ready), so a slow start fails with that process's log.
}, 240_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

describe('error shapes at the edge', () => {
  it('answers an unknown route with a JSON 404', async () => {
    const response = await t.api.get('/api/nothing-here/', { token: owner.access });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not found.' });
  });

  it('serves /api/v1/ exactly as /api/ and refuses unknown versions with 404', async () => {
    const plain = await t.api.get('/api/auth/me/', { token: owner.access });
    const v1 = await t.api.get('/api/v1/auth/me/', { token: owner.access });
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(plain.body);
    const v2 = await t.api.get('/api/v2/auth/me/', { token: owner.access });
    expect(v2.status).toBe(404);
    expect(v2.body).toEqual({ detail: 'Not found.' });
  });

  it('answers a method a known path does not serve with 405 and Allow, in the error shape', async () => {
    const response = await t.api.call('PUT', '/api/v1/contacts/', { token: owner.access, body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, POST');
    expect(response.body).toEqual({ detail: 'Method "PUT" not allowed.' });
  });

  it('answers malformed JSON with 400 and a detail', async () => {
    const response = await t.api.call('POST', '/api/settings/api-keys/', {
      token: owner.access,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ detail: expect.any(String) });
  });

  it('answers a body that is not JSON with 400', async () => {
    const response = await t.api.call('POST', '/api/settings/api-keys/', {
      token: owner.access,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.status).toBe(400);
  });

  it('refuses a body over the limit with 413 and creates nothing', async () => {
    const before = await t.api.get('/api/settings/api-keys/', { token: owner.access });
    const response = await t.api.post('/api/settings/api-keys/', { name: 'x'.repeat(2 * 1024 * 1024) }, { token: owner.access });
    expect(response.status).toBe(413);
    const after = await t.api.get('/api/settings/api-keys/', { token: owner.access });
    expect(after.body.count).toBe(before.body.count);
  });

  it('answers unknown fields and wrong types with 422 naming each field', async () => {
    const response = await t.api.post('/api/settings/api-keys/', { name: 42, admin: true }, { token: owner.access });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body).sort()).toEqual(['admin', 'name']);
  });

  it('replaces a request id that tries to inject headers', async () => {
    const response = await t.api.get('/api/auth/me/', { token: owner.access, headers: { 'x-request-id': 'abc\tdef; Set-Cookie: x=1' } });
    expect(response.headers['x-request-id']).toMatch(/^[A-Za-z0-9._-]+$/);
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('sends security headers', async () => {
    const response = await t.api.get('/api/auth/me/', { token: owner.access });
    expect(response.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-powered-by']).toBeUndefined();
  });

  it('never serves plain HTTP', async () => {
    const port = t.cluster.gateways[0]!.port;
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('latin1')));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
      socket.setTimeout(5000, () => socket.destroy());
    });
    expect(reply).not.toMatch(/HTTP\/1\.1 200/);
  });

  it('answers health and readiness without credentials', async () => {
    expect((await t.api.get('/healthz')).status).toBe(200);
    expect((await t.api.get('/readyz')).status).toBe(200);
  });

  it('answers 503 quickly when a backing service is down, and recovers when it returns', async () => {
    await t.cluster.processes.get('auth')!.stop('SIGKILL');
    const down = await t.api.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ detail: expect.any(String) });
    await t.cluster.restart('auth');
    // The gateway's channel reconnects with a short backoff (at most 2 s): calls fail fast until then.
    let back = await t.api.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
    for (let tries = 0; back.status === 503 && tries < 20; tries += 1) {
      await new Promise((r) => setTimeout(r, 250));
      back = await t.api.post('/api/auth/login/', { email: owner.user.email, password: owner.password });
    }
    expect(back.status).toBe(200);
  });
});
