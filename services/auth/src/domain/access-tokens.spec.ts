import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { openStore } from '@crm/store';
import { authCollections } from '../store/collections';
import { createRepositories } from '../store/repositories';
import { testPrivateKeyPem } from '../testing/auth-factory';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_ISSUER, AccessTokenIssuer, loadSigningKey, signingKeyFromPem } from './access-tokens';

const user = { id: 'usr_1', workspaceId: 'ws_1' };

describe('access tokens', () => {
  const key = signingKeyFromPem(testPrivateKeyPem(), new Date());
  const issuer = new AccessTokenIssuer(key, 3600);

  /** What the gateway does with the published key: RS256 pinned, issuer and audience checked. */
  function verifyAsGateway(token: string) {
    const [published] = issuer.published().keys;
    return jwt.verify(token, published!.publicKeyPem, {
      algorithms: ['RS256'],
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
  }

  it('carries sub, wid, issuer, audience, a one-hour expiry and the kid header', () => {
    const token = issuer.issue(user);
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header).toMatchObject({ alg: 'RS256', kid: key.kid });
    const payload = decoded.payload as jwt.JwtPayload;
    expect(payload).toMatchObject({ sub: 'usr_1', wid: 'ws_1', iss: 'crm-auth', aud: 'crm-api' });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('verifies with the published public key', () => {
    expect(verifyAsGateway(issuer.issue(user))).toMatchObject({ sub: 'usr_1' });
    expect(issuer.published()).toMatchObject({ issuer: 'crm-auth', audience: 'crm-api', keys: [{ kid: key.kid, algorithm: 'RS256' }] });
  });

  it('refuses a token with alg none', () => {
    const unsigned = jwt.sign({ wid: 'ws_1' }, '', {
      algorithm: 'none',
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    expect(() => verifyAsGateway(unsigned)).toThrow();
    expect(() => issuer.verify(unsigned)).toThrow(expect.objectContaining({ kind: 'unauthenticated' }));
  });

  it('refuses a token signed by another key', () => {
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const forged = jwt.sign({ wid: 'ws_1' }, otherKey, {
      algorithm: 'RS256',
      keyid: key.kid,
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    expect(() => verifyAsGateway(forged)).toThrow();
    expect(() => issuer.verify(forged)).toThrow(expect.objectContaining({ kind: 'unauthenticated' }));
  });

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', () => {
    const confused = jwt.sign({ wid: 'ws_1' }, Buffer.from(key.publicKeyPem), {
      algorithm: 'HS256',
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    expect(() => issuer.verify(confused)).toThrow(expect.objectContaining({ kind: 'unauthenticated' }));
  });

  it('refuses an expired token', () => {
    const expired = new AccessTokenIssuer(key, 1);
    const token = jwt.sign({ wid: 'ws_1', exp: Math.floor(Date.now() / 1000) - 10 }, key.privateKeyPem, {
      algorithm: 'RS256',
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    expect(() => expired.verify(token)).toThrow(expect.objectContaining({ kind: 'unauthenticated' }));
  });
});

describe('signing key', () => {
  it('is generated once and agreed on by replicas starting together', async () => {
    const store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: authCollections });
    try {
      const repository = createRepositories(store).signingKeys;
      const [a, b] = await Promise.all([
        loadSigningKey(repository, undefined, new Date()),
        loadSigningKey(repository, undefined, new Date()),
      ]);
      expect(a.kid).toBe(b.kid);
      const later = await loadSigningKey(repository, undefined, new Date());
      expect(later.publicKeyPem).toBe(a.publicKeyPem);
    } finally {
      await store.close();
    }
  });

  it('comes from the configured PEM when there is one, with a stable kid', () => {
    const a = signingKeyFromPem(testPrivateKeyPem(), new Date());
    const b = signingKeyFromPem(testPrivateKeyPem(), new Date());
    expect(a.kid).toBe(b.kid);
    expect(a.publicKeyPem).toContain('BEGIN PUBLIC KEY');
  });
});
