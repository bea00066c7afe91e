import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createLogger } from '@crm/observability';
import type { AuthClient } from '../clients/auth-client';
import { AccessTokenVerifier } from './access-token-verifier';

function rsaKey(kid: string) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const sign = (key: ReturnType<typeof rsaKey>, claims: Record<string, unknown> = {}) =>
  jwt.sign({ wid: 'ws_1', ...claims }, key.privateKey, {
    algorithm: 'RS256',
    keyid: key.kid,
    subject: 'usr_1',
    issuer: 'crm-auth',
    audience: 'crm-api',
    expiresIn: 3600,
  });

/** An auth that publishes whatever keys the test sets, counting the fetches. */
function fakeAuth(published: ReturnType<typeof rsaKey>[]) {
  const auth = {
    fetches: 0,
    published,
    call: async () => {
      auth.fetches += 1;
      return {
        keys: auth.published.map((k) => ({ kid: k.kid, algorithm: 'RS256', publicKeyPem: k.publicKeyPem })),
        issuer: 'crm-auth',
        audience: 'crm-api',
      };
    },
  };
  return auth;
}

describe('access token verifier', () => {
  const a = rsaKey('a');
  const b = rsaKey('b');
  const logger = createLogger('test', { level: 'silent' });

  it('accepts a token of a key published a moment after its last fetch (a rotation), and its session generation', async () => {
    const auth = fakeAuth([a]);
    const verifier = new AccessTokenVerifier(auth as unknown as AuthClient, logger, { refetchIntervalMs: 200 });
    await expect(verifier.verify(sign(a))).resolves.toMatchObject({ userId: 'usr_1', sessionGeneration: 0 });
    auth.published = [b, a];
    await expect(verifier.verify(sign(b, { gen: 2 }))).resolves.toMatchObject({ userId: 'usr_1', sessionGeneration: 2 });
    expect(auth.fetches).toBe(2);
  });

  it('fetches at most once per interval however many unknown key ids arrive, and refuses them', async () => {
    const auth = fakeAuth([a]);
    const verifier = new AccessTokenVerifier(auth as unknown as AuthClient, logger, { refetchIntervalMs: 300 });
    await verifier.verify(sign(a));
    const forged = Array.from({ length: 20 }, (_, i) => verifier.verify(sign({ ...a, kid: `forged-${i}` })));
    const results = await Promise.allSettled(forged);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(auth.fetches).toBe(2);
  });

  it('fetches an old key set again, so a key dropped by rotations stops working even without new key ids', async () => {
    let now = 1_000_000;
    const auth = fakeAuth([a]);
    const verifier = new AccessTokenVerifier(auth as unknown as AuthClient, logger, { maxKeyAgeMs: 60_000, now: () => now });
    const token = sign(a);
    await verifier.verify(token);
    auth.published = [b];
    now += 61_000;
    await verifier.verify(token); // answered from what it knew, while the key set is fetched again
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(verifier.verify(token)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses a non-integer session generation', async () => {
    const verifier = new AccessTokenVerifier(fakeAuth([a]) as unknown as AuthClient, logger);
    await expect(verifier.verify(sign(a, { gen: '1' }))).rejects.toMatchObject({ kind: 'unauthenticated' });
  });
});
