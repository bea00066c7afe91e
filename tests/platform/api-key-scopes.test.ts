/**
 * Scoped and expiring API keys through both gateway replicas: the operations to call and the scope
 * each needs come from the served OpenAPI document's `x-scope` (the gateway's route → scope table),
 * so every route is walked with keys of several scopes; an expired key is refused everywhere.
 */
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { liftRateLimit } from '../support/operator-cli';

let t: TestCluster;
let owner: SignedUp;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 2, withWorkers: false });
  owner = await signUp(t.api);
  await liftRateLimit(t.cluster, owner.user.workspaceId);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

interface ScopedOperation {
  method: string;
  path: string;
  scope: string;
}

/** Every operation of the document that a family scope guards, its path parameters filled with an id nobody has. */
async function scopedOperations(): Promise<ScopedOperation[]> {
  const document = (await t.api.get('/api/openapi.json')).body as { paths: Record<string, Record<string, { 'x-scope'?: string }>> };
  const found: ScopedOperation[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const scope = operation['x-scope'];
      if (method === 'head' || !scope?.includes(':')) continue;
      found.push({ method: method.toUpperCase(), path: template.replace(/\{[^}]+\}/g, 'zz_nobody'), scope });
    }
  }
  return found;
}

async function createKey(body: Record<string, unknown>) {
  const response = await t.api.post('/api/settings/api-keys/', { name: 'scoped', ...body }, { token: owner.access });
  expect(response.status).toBe(201);
  return response.body as { id: string; key: string; scopes: string[]; expiresAt: string | null };
}

/**
 * A write is sent with a JSON body that is not an object: past the scope check, the body parser (or
 * an upload route's own check) refuses it with 400, so nothing is written whatever the route.
 */
function callAs(key: string, operation: ScopedOperation, gateway: number) {
  const api = t.gateways[gateway % t.gateways.length]!;
  return operation.method === 'GET'
    ? api.get(operation.path, { token: key })
    : api.call(operation.method, operation.path, { token: key, body: [1] });
}

function allows(held: string, needed: string): boolean {
  const [family, action] = needed.split(':');
  return held === needed || (action === 'read' && held === `${family}:write`);
}

describe('scoped API keys', () => {
  it('let each scope reach exactly its routes, and answer every other route 403 naming the scope', async () => {
    const operations = await scopedOperations();
    expect(operations.length).toBeGreaterThan(40);
    const families = [...new Set(operations.map((o) => o.scope.split(':')[0]!))].sort();
    // One key per family that has routes, reads and writes in turn.
    const scopes = families.map((family, i) => `${family}:${i % 2 === 0 ? 'read' : 'write'}`);
    expect(scopes.length).toBeGreaterThanOrEqual(6);

    const mismatches: string[] = [];
    for (const scope of scopes) {
      const { key, scopes: held } = await createKey({ scopes: [scope] });
      expect(held).toEqual([scope]);
      let i = 0;
      for (const operation of operations) {
        const response = await callAs(key, operation, (i += 1));
        const allowed = allows(scope, operation.scope);
        const refusedForScope = response.status === 403 && String(response.body?.detail).includes(operation.scope);
        if (allowed ? response.status === 403 || response.status === 401 : !refusedForScope)
          mismatches.push(
            `${scope} ${operation.method} ${operation.path} (needs ${operation.scope}) → ${response.status} ${response.text.slice(0, 120)}`,
          );
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  it('let any key read the current user, and keep the settings reads for keys holding every scope', async () => {
    const { key } = await createKey({ scopes: ['contacts:write'] });
    expect((await t.api.get('/api/auth/me/', { token: key })).status).toBe(200);
    const settings = await t.api.get('/api/settings/users/', { token: key });
    expect(settings.status).toBe(403);
    expect(settings.body.detail).toContain('every scope');
  });

  it('keep full member rights for a key created without scopes', async () => {
    const created = await createKey({});
    expect(created.expiresAt).toBeNull();
    const listed = (await t.api.get('/api/settings/api-keys/', { token: owner.access })).body.results.find(
      (k: { id: string }) => k.id === created.id,
    );
    expect(listed).toMatchObject({ scopes: created.scopes, expiresAt: null });
    expect(created.scopes).toEqual(expect.arrayContaining(['contacts:write', 'imports:write', 'events:read', 'exports:write']));
    const contact = await t.api.post(
      '/api/contacts/',
      { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
      { token: created.key },
    );
    expect(contact.status).toBe(201);
    expect((await t.api.get('/api/settings/users/', { token: created.key })).status).toBe(200);
    expect((await t.api.get('/api/automations/rules/', { token: created.key })).status).toBe(200);
    // Member rights, not an admin's: settings writes stay closed.
    expect((await t.api.post('/api/settings/api-keys/', { name: 'child' }, { token: created.key })).status).toBe(403);
  });

  it('refuse an unknown scope and an expiry in the past with 422', async () => {
    const unknown = await t.api.post('/api/settings/api-keys/', { name: 'x', scopes: ['contacts:admin'] }, { token: owner.access });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body)).toEqual(['scopes']);
    const past = await t.api.post('/api/settings/api-keys/', { name: 'x', expiresAt: '2020-01-01T00:00:00Z' }, { token: owner.access });
    expect(past.status).toBe(422);
    expect(Object.keys(past.body)).toEqual(['expiresAt']);
  });
});

describe('expiring API keys', () => {
  it('work on every replica until they expire, then answer 401 on every replica', async () => {
    const expiresAt = new Date(Date.now() + 3_000).toISOString();
    const created = await createKey({ expiresAt });
    expect(Date.parse(created.expiresAt!)).toBeLessThanOrEqual(Date.parse(expiresAt));
    // Both replicas verify the key and cache it (for up to a minute, were it not for the expiry).
    for (const gateway of t.gateways) expect((await gateway.get('/api/auth/me/', { token: created.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 200));
    for (const gateway of t.gateways) {
      const response = await gateway.get('/api/auth/me/', { token: created.key });
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });
});
