import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';

let t: TestCluster;
let owner: SignedUp;

beforeAll(async () => {
  t = await startTestCluster({ gateways: 2, withWorkers: false, env: { API_KEY_USAGE_FLUSH_MS: '1000' } });
  owner = await signUp(t.api);
}, 90_000 + CLUSTER_RETRY_MS);

afterAll(async () => {
  await t?.stop();
});

async function createKey(name: string) {
  const response = await t.api.post('/api/settings/api-keys/', { name }, { token: owner.access });
  expect(response.status).toBe(201);
  return response.body as { id: string; name: string; key: string; prefix: string; createdAt: string };
}

describe('workspace API keys', () => {
  it('shows the key once, lists it without the key, and attributes calls to the system user', async () => {
    const created = await createKey('Zapier');
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

    const list = await t.api.get('/api/settings/api-keys/', { token: owner.access });
    expect(list.status).toBe(200);
    const listed = list.body.results.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ id: created.id, name: 'Zapier', prefix: created.prefix });
    expect(JSON.stringify(list.body)).not.toContain(created.key);

    const me = await t.api.get('/api/auth/me/', { token: created.key });
    expect(me.status).toBe(200);
    expect(me.body.workspaceId).toBe(owner.user.workspaceId);
    expect(me.body.id).not.toBe(owner.user.id);
  });

  it('works on every replica and stops working on every replica at once when revoked on one', async () => {
    const created = await createKey('revoke me');
    const [replicaA, replicaB] = t.gateways;
    expect((await replicaA!.get('/api/auth/me/', { token: created.key })).status).toBe(200);
    expect((await replicaB!.get('/api/auth/me/', { token: created.key })).status).toBe(200);

    const revoked = await replicaA!.delete(`/api/settings/api-keys/${created.id}/`, { token: owner.access });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');

    // No sleep: replica B cached the key a moment ago and must have dropped it already.
    const afterOnB = await replicaB!.get('/api/auth/me/', { token: created.key });
    expect(afterOnB.status).toBe(401);
    const afterOnA = await replicaA!.get('/api/auth/me/', { token: created.key });
    expect(afterOnA.status).toBe(401);
  });

  it("answers another workspace's key id with 404", async () => {
    const created = await createKey('mine');
    const stranger = await signUp(t.api);
    const revoke = await t.api.delete(`/api/settings/api-keys/${created.id}/`, { token: stranger.access });
    expect(revoke.status).toBe(404);
    expect(revoke.body).toEqual({ detail: 'Not found.' });
    const usage = await t.api.get(`/api/settings/api-keys/${created.id}/usage/`, { token: stranger.access });
    expect(usage.status).toBe(404);
    expect((await t.api.get('/api/auth/me/', { token: created.key })).status).toBe(200);
  });

  it('does not let an API key create more API keys', async () => {
    const created = await createKey('no escalation');
    const response = await t.api.post('/api/settings/api-keys/', { name: 'child' }, { token: created.key });
    expect(response.status).toBe(403);
  });

  it('reports usage per day once the gateways have flushed their counts', async () => {
    const created = await createKey('counted');
    for (let i = 0; i < 3; i += 1) await t.gateways[i % 2]!.get('/api/auth/me/', { token: created.key });
    let usage = await t.api.get(`/api/settings/api-keys/${created.id}/usage/`, { token: owner.access });
    const deadline = Date.now() + 20_000;
    while (usage.body.total < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      usage = await t.api.get(`/api/settings/api-keys/${created.id}/usage/`, { token: owner.access });
    }
    expect(usage.status).toBe(200);
    expect(usage.body.total).toBe(3);
    expect(usage.body.days).toEqual([{ date: new Date().toISOString().slice(0, 10), count: 3 }]);
    expect(usage.body.lastUsedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});
