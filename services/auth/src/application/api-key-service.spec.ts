import { buildAuth, userCaller, type AuthFixture } from '../testing/auth-factory';
import type { Caller } from '../domain/caller';
import { DAY_MS } from '../domain/clock';
import type { User } from '../domain/model';
import { API_KEY_SCOPES } from '@crm/vocabulary';

describe('API keys', () => {
  let auth: AuthFixture;
  let admin: User;
  let caller: Caller;
  beforeEach(async () => {
    auth = await buildAuth();
    admin = (await auth.signUp()).user;
    caller = userCaller(admin);
  });
  afterEach(() => auth.close());

  it('creates a key shown once in the crm_<prefix>_<secret> shape', async () => {
    const { apiKey, key } = await auth.apiKeys.create(caller, 'Zapier');
    expect(key).toMatch(/^crm_[0-9A-Za-z]{8}_[A-Za-z0-9_-]{43}$/);
    expect(key.startsWith(`${apiKey.prefix}_`)).toBe(true);
    expect(apiKey).toMatchObject({ name: 'Zapier', id: expect.stringMatching(/^key_/) });
    expect(JSON.stringify(await auth.apiKeys.list(caller))).not.toContain(key.slice(13));
  });

  it('verifies a key to its id and workspace', async () => {
    const { apiKey, key } = await auth.apiKeys.create(caller, 'Zapier');
    const verified = await auth.apiKeys.verify(key);
    expect(verified.keyId).toBe(apiKey.id);
    expect(verified.workspace).toMatchObject({ id: admin.workspaceId, plan: 'starter', rateLimitPerMinute: 100 });
  });

  it('holds every scope and never expires when created without limits', async () => {
    const { key } = await auth.apiKeys.create(caller, 'Zapier');
    const verified = await auth.apiKeys.verify(key);
    expect(verified.scopes).toEqual(API_KEY_SCOPES);
    expect(verified.expiresAt).toBeUndefined();
  });

  it('stores the scopes given, each once in the vocabulary order, and verifies to them', async () => {
    const { apiKey, key } = await auth.apiKeys.create(caller, 'Zapier', { scopes: ['leads:read', 'contacts:write', 'leads:read'] });
    expect(apiKey.scopes).toEqual(['contacts:write', 'leads:read']);
    expect((await auth.apiKeys.verify(key)).scopes).toEqual(['contacts:write', 'leads:read']);
    expect((await auth.apiKeys.list(caller))[0]).toMatchObject({ scopes: ['contacts:write', 'leads:read'] });
  });

  it('refuses an unknown scope and an expiry that is not a future timestamp, field by field', async () => {
    const refused = auth.apiKeys.create(caller, 'bad', { scopes: ['contacts:read', 'events:write'], expiresAt: 'soon' });
    await expect(refused).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { scopes: [expect.stringContaining('events:write')], expiresAt: [expect.any(String)] },
    });
    const past = auth.apiKeys.create(caller, 'bad', { expiresAt: new Date(auth.clock.now().getTime() - 1).toISOString() });
    await expect(past).rejects.toMatchObject({ fields: { expiresAt: ['Ensure this timestamp is in the future.'] } });
  });

  it('verifies a key until it expires, then refuses it as any bad key', async () => {
    const expiresAt = new Date(auth.clock.now().getTime() + 60_000).toISOString();
    const { key } = await auth.apiKeys.create(caller, 'brief', { expiresAt });
    expect((await auth.apiKeys.verify(key)).expiresAt).toBe(expiresAt);
    auth.clock.advance(60_000);
    await expect(auth.apiKeys.verify(key)).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Invalid or revoked API key.' });
  });

  it('refuses unknown and malformed keys', async () => {
    const { key } = await auth.apiKeys.create(caller, 'Zapier');
    const flipped = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    await expect(auth.apiKeys.verify(flipped)).rejects.toMatchObject({ kind: 'unauthenticated' });
    await expect(auth.apiKeys.verify('crm_nope')).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('lists active keys newest first', async () => {
    const first = await auth.apiKeys.create(caller, 'first');
    auth.clock.advance(1000);
    const second = await auth.apiKeys.create(caller, 'second');
    auth.clock.advance(1000);
    const third = await auth.apiKeys.create(caller, 'third');
    await auth.apiKeys.revoke(caller, second.apiKey.id);
    expect((await auth.apiKeys.list(caller)).map((k) => k.id)).toEqual([third.apiKey.id, first.apiKey.id]);
  });

  it('stops verifying a key at once when it is revoked', async () => {
    const { apiKey, key } = await auth.apiKeys.create(caller, 'Zapier');
    await auth.apiKeys.revoke(caller, apiKey.id);
    await expect(auth.apiKeys.verify(key)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it("answers not found for another workspace's key id, and leaves that key working", async () => {
    const other = (await auth.signUp()).user;
    const { apiKey, key } = await auth.apiKeys.create(userCaller(other), 'theirs');
    await expect(auth.apiKeys.revoke(caller, apiKey.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(auth.apiKeys.usage(caller, apiKey.id)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(auth.apiKeys.verify(key)).resolves.toMatchObject({ keyId: apiKey.id });
  });

  it('answers not found when revoking a key twice', async () => {
    const { apiKey } = await auth.apiKeys.create(caller, 'Zapier');
    await auth.apiKeys.revoke(caller, apiKey.id);
    await expect(auth.apiKeys.revoke(caller, apiKey.id)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('refuses a member to manage keys', async () => {
    const member = await auth.addMember(admin.workspaceId);
    await expect(auth.apiKeys.create(userCaller(member), 'mine')).rejects.toMatchObject({ kind: 'permission_denied' });
    await expect(auth.apiKeys.list(userCaller(member))).resolves.toEqual([]);
  });

  it('refuses an API-key caller to manage keys', async () => {
    const { apiKey } = await auth.apiKeys.create(caller, 'Zapier');
    const workspace = await auth.workspaces.get(admin.workspaceId);
    const keyCaller: Caller = { workspaceId: admin.workspaceId, actorId: workspace.systemUserId, actorKind: 'api_key' };
    await expect(auth.apiKeys.create(keyCaller, 'another')).rejects.toMatchObject({ kind: 'permission_denied' });
    await expect(auth.apiKeys.revoke(keyCaller, apiKey.id)).rejects.toMatchObject({ kind: 'permission_denied' });
  });

  it('needs a name', async () => {
    await expect(auth.apiKeys.create(caller, '  ')).rejects.toMatchObject({
      kind: 'validation_failed',
      fields: { name: ['This field is required.'] },
    });
  });

  describe('usage', () => {
    it('adds up batches per key and day', async () => {
      const { apiKey } = await auth.apiKeys.create(caller, 'Zapier');
      await auth.apiKeys.recordUsage([
        { keyId: apiKey.id, day: '2025-03-01', count: 3 },
        { keyId: apiKey.id, day: '2025-02-28', count: 1 },
      ]);
      await auth.apiKeys.recordUsage([{ keyId: apiKey.id, day: '2025-03-01', count: 4 }]);
      const usage = await auth.apiKeys.usage(caller, apiKey.id);
      expect(usage.days).toEqual([
        { date: '2025-03-01', count: 7 },
        { date: '2025-02-28', count: 1 },
      ]);
      expect(usage.total).toBe(8);
    });

    it('keeps lastUsedAt moving only forward, whatever order batches arrive in', async () => {
      const { apiKey } = await auth.apiKeys.create(caller, 'Zapier');
      await auth.apiKeys.recordUsage([{ keyId: apiKey.id, day: '2025-03-01', count: 1, lastUsedAt: '2025-03-01T11:00:00Z' }]);
      await auth.apiKeys.recordUsage([{ keyId: apiKey.id, day: '2025-03-01', count: 1, lastUsedAt: '2025-03-01T10:00:00Z' }]);
      expect((await auth.apiKeys.usage(caller, apiKey.id)).lastUsedAt).toBe('2025-03-01T11:00:00.000Z');
      await auth.apiKeys.recordUsage([{ keyId: apiKey.id, day: '2025-03-01', count: 1, lastUsedAt: '2025-03-01T11:30:00Z' }]);
      expect((await auth.apiKeys.usage(caller, apiKey.id)).lastUsedAt).toBe('2025-03-01T11:30:00.000Z');
    });

    it('shows the last 90 days only', async () => {
      const { apiKey } = await auth.apiKeys.create(caller, 'Zapier');
      const day = (daysAgo: number) => new Date(auth.clock.now().getTime() - daysAgo * DAY_MS).toISOString().slice(0, 10);
      await auth.apiKeys.recordUsage([
        { keyId: apiKey.id, day: day(89), count: 2 },
        { keyId: apiKey.id, day: day(90), count: 5 },
      ]);
      expect((await auth.apiKeys.usage(caller, apiKey.id)).days).toEqual([{ date: day(89), count: 2 }]);
    });

    it('skips entries for unknown keys and keeps the rest of the batch', async () => {
      const { apiKey } = await auth.apiKeys.create(caller, 'Zapier');
      const result = await auth.apiKeys.recordUsage([
        { keyId: 'key_unknown', day: '2025-03-01', count: 9 },
        { keyId: apiKey.id, day: 'yesterday', count: 9 },
        { keyId: apiKey.id, day: '2025-03-01', count: 2 },
      ]);
      expect(result).toEqual({ recorded: 1, skipped: 2 });
      expect((await auth.apiKeys.usage(caller, apiKey.id)).total).toBe(2);
    });
  });
});
