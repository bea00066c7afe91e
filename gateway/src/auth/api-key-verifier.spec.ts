import { DomainError } from '@crm/observability';
import { API_KEY_SCOPES } from '@crm/vocabulary';
import type { AuthClient } from '../clients/auth-client';
import { ApiKeyVerifier } from './api-key-verifier';

const workspace = {
  id: 'ws_1',
  name: 'W',
  plan: 'starter',
  rateLimitPerMinute: 0,
  systemUserId: 'usr_sys',
  createdAt: '',
  endedSessions: [],
};
const ids = { requestId: 'req_1' };
const KEY = 'crm_abcdefgh_secret';

/** An auth that answers VerifyApiKey with `answer()` and counts the calls; a clock the test moves. */
function setUp(answer: () => Record<string, unknown>) {
  let now = Date.parse('2026-11-26T12:00:00Z');
  let calls = 0;
  const auth: AuthClient = {
    call: (async () => {
      calls += 1;
      return answer();
    }) as AuthClient['call'],
  };
  const verifier = new ApiKeyVerifier(auth, { ttlMs: 60_000, now: () => now });
  return { verifier, calls: () => calls, advance: (ms: number) => (now += ms), now: () => now };
}

describe('ApiKeyVerifier', () => {
  it("returns the key's scopes and caches the answer for the TTL", async () => {
    const t = setUp(() => ({ keyId: 'key_1', workspace, scopes: ['contacts:read'], expiresAt: '' }));
    expect(await t.verifier.verify(KEY, ids)).toEqual({ keyId: 'key_1', workspace, scopes: ['contacts:read'] });
    t.advance(59_000);
    await t.verifier.verify(KEY, ids);
    expect(t.calls()).toBe(1);
    t.advance(2_000);
    await t.verifier.verify(KEY, ids);
    expect(t.calls()).toBe(2);
  });

  it('reads no scopes (an auth from before scopes) as every scope', async () => {
    const t = setUp(() => ({ keyId: 'key_1', workspace, scopes: [], expiresAt: '' }));
    expect((await t.verifier.verify(KEY, ids)).scopes).toEqual(API_KEY_SCOPES);
  });

  it('never serves a cached key past its expiry, even within the TTL', async () => {
    const t = setUp(() => ({ keyId: 'key_1', workspace, scopes: [], expiresAt: '2026-11-26T12:00:10Z' }));
    const first = await t.verifier.verify(KEY, ids);
    expect(first.expiresAt).toBe(Date.parse('2026-11-26T12:00:10Z'));
    t.advance(9_000);
    await t.verifier.verify(KEY, ids);
    expect(t.calls()).toBe(1);
    t.advance(1_000);
    // Auth would now refuse it; here it answered the stale expiry, and the gateway refuses it itself.
    await expect(t.verifier.verify(KEY, ids)).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect(t.calls()).toBe(2);
  });

  it('refuses an expired key as any bad credential when auth refuses it', async () => {
    const t = setUp(() => {
      throw DomainError.unauthenticated('Invalid or revoked API key.');
    });
    await expect(t.verifier.verify(KEY, ids)).rejects.toMatchObject({ kind: 'unauthenticated', message: 'Invalid API key.' });
  });
});
