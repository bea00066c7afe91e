import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@crm/observability';
import { API_KEY_SCOPES } from '@crm/vocabulary';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { gatewayConfig } from './config';
import { startGateway, type RunningGateway } from './index';
import { FakeAuthService } from './testing/fake-auth-service';
import { HttpsClient } from './testing/https-client';
import { MemoryCounter } from './testing/memory-counter';

const silent = createLogger('gateway-test', { level: 'silent' });
const dataDir = mkdtempSync(join(tmpdir(), 'crm-gateway-'));
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('gateway over HTTPS with a fake auth service', () => {
  const auth = new FakeAuthService();
  const invalidation = new LocalInvalidationChannel(createLogger('test', { level: 'silent' }));
  let gateway: RunningGateway;
  let client: HttpsClient;

  beforeAll(async () => {
    const authPort = await auth.start();
    auth.addWorkspace('ws_small', 3);
    auth.addUser('usr_bob', 'bob@example.com', 'pw', 'ws_small');
    gateway = await startGateway(
      gatewayConfig({
        CRM_HOST: '127.0.0.1',
        CRM_PORT: 0,
        CRM_DATA_DIR: dataDir,
        AUTH_GRPC_ADDR: `127.0.0.1:${authPort}`,
        BODY_LIMIT: '10kb',
      }),
      {
        logger: silent,
        rateLimitCounter: new MemoryCounter(),
        invalidation,
        budgets: { anonymousPerMinute: 1000, sessionPerAddressPerMinute: 1000, loginPerEmailPerMinute: 3 },
      },
    );
    client = new HttpsClient(gateway.url);
  });

  afterAll(async () => {
    await client.close();
    await gateway.stop();
    await auth.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describe('credentials', () => {
    it('answers a request without a token with 401 and a Bearer challenge', async () => {
      const response = await client.send('GET', '/api/auth/me/');
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: expect.any(String) });
      expect(response.headers['www-authenticate']).toBe('Bearer realm="crm"');
    });

    it('answers a garbled token with 401 invalid_token', async () => {
      const response = await client.send('GET', '/api/auth/me/', { token: 'not.a.jwt' });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('answers a malformed Authorization header with 401', async () => {
      const response = await client.send('GET', '/api/auth/me/', { headers: { authorization: 'Basic YWxhZGRpbjpvcGVuc2VzYW1l' } });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toContain('Bearer');
    });

    it('answers an expired token with 401', async () => {
      const response = await client.send('GET', '/api/auth/me/', { token: auth.accessToken('usr_ann', { expiresIn: -60 }) });
      expect(response.status).toBe(401);
      expect(response.body.detail).toBe('Token has expired.');
      expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    });

    it('refuses an unsigned token (alg none)', async () => {
      const real = auth.accessToken().split('.');
      const unsigned = `${base64url({ alg: 'none', typ: 'JWT', kid: 'test-key-1' })}.${real[1]}.`;
      const response = await client.send('GET', '/api/auth/me/', { token: unsigned });
      expect(response.status).toBe(401);
    });

    it('refuses a token signed with another RSA key under the same key id', async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const response = await client.send('GET', '/api/auth/me/', { token: auth.accessToken('usr_ann', { key: privateKey }) });
      expect(response.status).toBe(401);
    });

    it('serves the login user for a valid access token', async () => {
      const response = await client.send('GET', '/api/auth/me/', { token: auth.accessToken() });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        id: 'usr_ann',
        email: 'ann@example.com',
        firstName: 'Ann',
        lastName: 'Lee',
        workspaceId: 'ws_main',
        role: 'admin',
      });
    });
  });

  describe('sessions', () => {
    it('logs in, then rotates the refresh token and refuses the old one', async () => {
      const login = await client.send('POST', '/api/auth/login/', { json: { email: 'ann@example.com', password: 'correct horse' } });
      expect(login.status).toBe(200);
      expect(login.body).toEqual({
        access: expect.any(String),
        refresh: expect.any(String),
        user: expect.objectContaining({ id: 'usr_ann' }),
      });

      const refreshed = await client.send('POST', '/api/auth/token/refresh/', { json: { refresh: login.body.refresh } });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body).toEqual({ access: expect.any(String), refresh: expect.any(String) });
      expect((await client.send('GET', '/api/auth/me/', { token: refreshed.body.access })).status).toBe(200);

      const reused = await client.send('POST', '/api/auth/token/refresh/', { json: { refresh: login.body.refresh } });
      expect(reused.status).toBe(401);
    });

    it('answers a wrong password with 401', async () => {
      const response = await client.send('POST', '/api/auth/login/', { json: { email: 'ann@example.com', password: 'nope' } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: expect.any(String) });
    });

    it('limits login attempts per email with 429 and Retry-After', async () => {
      const attempt = () => client.send('POST', '/api/auth/login/', { json: { email: 'guess@example.com', password: 'x' } });
      for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(401);
      const refused = await attempt();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('signs up a new workspace with 201', async () => {
      const response = await client.send('POST', '/api/auth/signup/', {
        json: { workspaceName: 'Acme', email: 'new@example.com', password: 'long enough', firstName: 'N', lastName: 'U' },
      });
      expect(response.status).toBe(201);
      expect(response.body.user.email).toBe('new@example.com');
    });

    it('reports every failing field of a body with 422, unknown fields included', async () => {
      const response = await client.send('POST', '/api/auth/signup/', { json: { email: 'not-an-email', extra: 1 } });
      expect(response.status).toBe(422);
      expect(Object.keys(response.body).sort()).toEqual(['email', 'extra', 'firstName', 'lastName', 'password', 'workspaceName']);
      expect(response.body.extra).toEqual(['Unknown field.']);
    });
  });

  describe('API keys', () => {
    it('creates a key, accepts it, and refuses it at once after DELETE', async () => {
      const owner = auth.accessToken();
      const created = await client.send('POST', '/api/settings/api-keys/', { token: owner, json: { name: 'CI' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'CI',
        key: expect.stringMatching(/^crm_/),
        prefix: expect.any(String),
        createdAt: expect.any(String),
        scopes: API_KEY_SCOPES,
        expiresAt: null,
      });

      const me = await client.send('GET', '/api/auth/me/', { token: created.body.key });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe('usr_system_ws_main');

      const list = await client.send('GET', '/api/settings/api-keys', { token: owner });
      expect(list.body.results.find((k: { id: string }) => k.id === created.body.id)).toEqual(
        expect.objectContaining({ lastUsedAt: null }),
      );
      expect(JSON.stringify(list.body)).not.toContain(created.body.key);

      expect((await client.send('DELETE', `/api/settings/api-keys/${created.body.id}/`, { token: owner })).status).toBe(204);
      const after = await client.send('GET', '/api/auth/me/', { token: created.body.key });
      expect(after.status).toBe(401);
    });

    it('answers a retry of a key creation with 409 instead of keeping the key to replay it', async () => {
      const owner = auth.accessToken();
      const keyed = { token: owner, json: { name: 'retried' }, headers: { 'idempotency-key': 'create-once' } };
      const created = await client.send('POST', '/api/settings/api-keys/', keyed);
      const retry = await client.send('POST', '/api/settings/api-keys/', keyed);
      expect(created.status).toBe(201);
      expect(retry.status).toBe(409);
      expect(retry.body).toEqual({ detail: expect.stringContaining('one-time secret') });
      expect(retry.text).not.toContain(created.body.key);
    });

    it('drops a cached key as soon as another replica announces its revocation', async () => {
      const key = auth.addApiKey('ws_main');
      expect((await client.send('GET', '/api/auth/me/', { token: key })).status).toBe(200);
      const stored = [...auth.apiKeys.values()].find((k) => k.key === key)!;
      stored.revokedAt = new Date().toISOString();
      await invalidation.publish({ kind: 'api_key_revoked', keyId: stored.id });
      expect((await client.send('GET', '/api/auth/me/', { token: key })).status).toBe(401);
    });

    it('counts key usage in memory and reports it per day', async () => {
      const owner = auth.accessToken();
      const created = await client.send('POST', '/api/settings/api-keys/', { token: owner, json: { name: 'usage' } });
      await client.send('GET', '/api/auth/me/', { token: created.body.key });
      await client.send('GET', '/api/auth/me/', { token: created.body.key });
      const usage = await client.send('GET', `/api/settings/api-keys/${created.body.id}/usage/`, { token: owner });
      expect(usage.status).toBe(200);
      expect(usage.body).toEqual({
        id: created.body.id,
        lastUsedAt: expect.any(String),
        total: 2,
        days: [{ date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/), count: 2 }],
      });
    });

    it('answers and lists a key with its scopes and expiry', async () => {
      const owner = auth.accessToken();
      const expiresAt = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const json = { name: 'scoped', scopes: ['leads:write', 'contacts:read'], expiresAt };
      const created = await client.send('POST', '/api/settings/api-keys/', { token: owner, json });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ scopes: ['leads:write', 'contacts:read'], expiresAt });
      const list = await client.send('GET', '/api/settings/api-keys/', { token: owner });
      expect(list.body.results.find((k: { id: string }) => k.id === created.body.id)).toMatchObject({ scopes: json.scopes, expiresAt });
    });

    it('refuses an unknown scope, an empty list, and an expiry that is not a timestamp in the future with 422', async () => {
      const owner = auth.accessToken();
      const send = (json: Record<string, unknown>) =>
        client.send('POST', '/api/settings/api-keys/', { token: owner, json: { name: 'bad', ...json } });
      const unknown = await send({ scopes: ['contacts:read', 'events:write', 'everything'] });
      expect(unknown.status).toBe(422);
      expect(unknown.body).toEqual({ scopes: [expect.stringContaining('Unknown scope: events:write, everything.')] });
      expect((await send({ scopes: [] })).body).toEqual({ scopes: [expect.any(String)] });
      expect((await send({ expiresAt: 'tomorrow' })).body).toEqual({ expiresAt: ['Enter a valid ISO 8601 timestamp.'] });
      expect((await send({ expiresAt: '2099-01-01T00:00:00' })).body).toEqual({ expiresAt: ['Enter a valid ISO 8601 timestamp.'] });
      const past = await send({ expiresAt: '2020-01-01T00:00:00Z' });
      expect(past.status).toBe(422);
      expect(past.body).toEqual({ expiresAt: ['Ensure this timestamp is in the future.'] });
    });

    it('refuses a scoped key outside its scopes with 403 naming the scope, and lets it through inside them', async () => {
      const key = auth.addApiKey('ws_main', 'scoped', { scopes: ['contacts:read'] });
      const write = await client.send('POST', '/api/contacts/', { token: key, json: { firstName: 'A' } });
      expect(write.status).toBe(403);
      expect(write.body).toEqual({ detail: 'This API key lacks the scope contacts:write (it holds contacts:read).' });
      expect((await client.send('GET', '/api/leads/', { token: key })).body.detail).toContain('leads:read');
      expect((await client.send('GET', '/api/settings/webhooks/', { token: key })).status).toBe(403);
      expect((await client.send('GET', '/api/auth/me/', { token: key })).status).toBe(200);
      // No records service here: past the scope check, the request fails further on.
      expect((await client.send('GET', '/api/contacts/', { token: key })).status).not.toBe(403);
      expect((await client.send('POST', '/api/contacts/query/', { token: key, json: {} })).status).not.toBe(403);
    });

    it('refuses an expired key with 401', async () => {
      const key = auth.addApiKey('ws_main', 'brief', { expiresAt: new Date(Date.now() + 300).toISOString() });
      expect((await client.send('GET', '/api/auth/me/', { token: key })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await client.send('GET', '/api/auth/me/', { token: key })).status).toBe(401);
    });

    it('does not let an API key create or revoke API keys (settings writes are for admins)', async () => {
      const key = auth.addApiKey('ws_main');
      const created = await client.send('POST', '/api/settings/api-keys/', { token: key, json: { name: 'child' } });
      expect(created.status).toBe(403);
      expect(created.body.detail).toMatch(/member rights/);
      expect((await client.send('DELETE', '/api/settings/api-keys/key_x/', { token: key })).status).toBe(403);
    });
  });

  describe('rate limits', () => {
    it('puts the X-RateLimit headers on a success', async () => {
      const response = await client.send('GET', '/api/auth/me/', { token: auth.accessToken() });
      expect(response.headers['x-ratelimit-limit']).toBe('1000');
      expect(Number(response.headers['x-ratelimit-remaining'])).toBeLessThan(1000);
      expect(Number(response.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    });

    it.each([
      ['a 401', '/api/auth/me/', undefined],
      ['a 404', '/api/nowhere/', 'token'],
      ['an unknown version', '/api/v2/auth/me/', undefined],
    ])('puts them on %s too', async (_name, path, token) => {
      const response = await client.send('GET', path, { token: token ? auth.accessToken() : undefined });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.headers['x-ratelimit-limit']).toBeDefined();
      expect(response.headers['x-ratelimit-remaining']).toBeDefined();
      expect(response.headers['x-ratelimit-reset']).toBeDefined();
    });

    it('answers 429 with Retry-After once the workspace budget is spent', async () => {
      const token = auth.accessToken('usr_bob');
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await client.send('GET', '/api/auth/me/', { token })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await client.send('GET', '/api/auth/me/', { token });
      expect(refused.body).toEqual({ detail: expect.any(String) });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    });
  });

  describe('methods', () => {
    it('answers a method a served path does not serve with 405, Allow and a detail', async () => {
      const response = await client.send('DELETE', '/api/auth/me/', { token: auth.accessToken() });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('GET, HEAD');
      expect(response.body).toEqual({ detail: 'Method "DELETE" not allowed.' });
      expect(response.headers['x-ratelimit-limit']).toBeDefined();
    });

    it('lists every method of a path with a parameter, with or without the trailing slash and version', async () => {
      const response = await client.send('PUT', '/api/v1/settings/api-keys/key_1', { token: auth.accessToken() });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('DELETE');
    });

    it('still answers 404 for a path no route serves', async () => {
      const response = await client.send('DELETE', '/api/nothing-here/', { token: auth.accessToken() });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Not found.' });
    });
  });

  describe('bodies', () => {
    const token = () => auth.accessToken();

    it('answers malformed JSON with 400', async () => {
      const response = await client.send('POST', '/api/settings/api-keys/', {
        token: token(),
        body: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ detail: expect.any(String) });
    });

    it.each(['null', '42', '"str"', 'true', '[1]'])(
      'answers well-formed JSON that is not an object (%s) with a 400 saying so',
      async (body) => {
        const response = await client.send('POST', '/api/settings/api-keys/', {
          token: token(),
          body,
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ detail: 'The request body must be a JSON object.' });
      },
    );

    it('answers a body that is not application/json with 400', async () => {
      const response = await client.send('POST', '/api/settings/api-keys/', {
        token: token(),
        body: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(response.status).toBe(400);
      expect(response.body.detail).toMatch(/content type/i);
    });

    it('answers a body over the limit with 413', async () => {
      const response = await client.send('POST', '/api/settings/api-keys/', { token: token(), json: { name: 'x'.repeat(20_000) } });
      expect(response.status).toBe(413);
      expect(response.body).toEqual({ detail: expect.any(String) });
    });

    it('refuses prototype-pollution keys with 400', async () => {
      const response = await client.send('POST', '/api/settings/api-keys/', {
        token: token(),
        body: '{"name":"x","__proto__":{"admin":true}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });
  });

  describe('paths and headers', () => {
    it('answers an unknown route with a JSON 404', async () => {
      const response = await client.send('GET', '/api/nowhere/', { token: auth.accessToken() });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Not found.' });
    });

    it('serves /api/v1/... like /api/...', async () => {
      const response = await client.send('GET', '/api/v1/auth/me', { token: auth.accessToken() });
      expect(response.status).toBe(200);
      expect(response.body.id).toBe('usr_ann');
    });

    it('answers /api/v2/... with 404', async () => {
      const response = await client.send('GET', '/api/v2/auth/me/', { token: auth.accessToken() });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ detail: 'Not found.' });
    });

    it('replaces an X-Request-Id that is not a plain identifier', async () => {
      const response = await client.send('GET', '/healthz', { headers: { 'x-request-id': 'abc"><script>; Set-Cookie: x=1' } });
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.headers['set-cookie']).toBeUndefined();
    });

    it('keeps a safe X-Request-Id', async () => {
      const response = await client.send('GET', '/healthz', { headers: { 'x-request-id': 'client-req.42' } });
      expect(response.headers['x-request-id']).toBe('client-req.42');
    });

    it('sends the security headers and no X-Powered-By', async () => {
      const response = await client.send('GET', '/api/auth/me/', { token: auth.accessToken() });
      expect(response.headers['strict-transport-security']).toContain('max-age=');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['x-powered-by']).toBeUndefined();
    });

    it('answers the probes without a credential', async () => {
      expect((await client.send('GET', '/healthz')).status).toBe(200);
      expect((await client.send('GET', '/readyz')).status).toBe(200);
    });

    it('serves the OpenAPI document without a credential', async () => {
      const response = await client.send('GET', '/api/openapi.json');
      expect(response.status).toBe(200);
      expect(response.body.openapi).toBe('3.1.0');
    });
  });
});

describe('gateway whose auth service is down', () => {
  let gateway: RunningGateway;
  let client: HttpsClient;

  beforeAll(async () => {
    const port = await closedPort();
    gateway = await startGateway(
      gatewayConfig({
        CRM_HOST: '127.0.0.1',
        CRM_PORT: 0,
        CRM_DATA_DIR: dataDir,
        AUTH_GRPC_ADDR: `127.0.0.1:${port}`,
        SIGNUP_ENABLED: false,
      }),
      {
        logger: silent,
        rateLimitCounter: new MemoryCounter(),
        invalidation: new LocalInvalidationChannel(createLogger('test', { level: 'silent' })),
      },
    );
    client = new HttpsClient(gateway.url);
  });

  afterAll(async () => {
    await client.close();
    await gateway.stop();
  });

  it('answers login with 503 rather than hanging', async () => {
    const response = await client.send('POST', '/api/auth/login/', { json: { email: 'a@example.com', password: 'x' } });
    expect(response.status).toBe(503);
    expect(response.body.detail).toMatch(/unavailable/);
  });

  it('answers an authenticated call with 503 when the signing keys cannot be fetched', async () => {
    const response = await client.send('GET', '/api/auth/me/', { token: new FakeAuthService().accessToken() });
    expect(response.status).toBe(503);
  });

  it('reports not ready', async () => {
    expect((await client.send('GET', '/readyz')).status).toBe(503);
  });

  it('answers signup with 404 when signup is turned off', async () => {
    const response = await client.send('POST', '/api/auth/signup/', { json: {} });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ detail: 'Not found.' });
  });
});
