import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { openStore, type DocumentStore } from '@crm/store';
import { authCollections } from '../store/collections';
import { createRepositories } from '../store/repositories';
import { testPrivateKeyPem } from '../testing/auth-factory';
import { ACCESS_TOKEN_AUDIENCE, ACCESS_TOKEN_ISSUER, AccessTokenIssuer } from './access-tokens';
import { signingKeyFromPem, SigningKeyRing } from './signing-keys';

const user = { id: 'usr_1', workspaceId: 'ws_1' };

describe('access tokens', () => {
  const key = signingKeyFromPem(testPrivateKeyPem(), new Date());
  let store: DocumentStore;
  let ring: SigningKeyRing;
  let issuer: AccessTokenIssuer;

  beforeAll(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: authCollections });
    ring = await SigningKeyRing.open(createRepositories(store).signingKeys, testPrivateKeyPem(), () => new Date());
    issuer = new AccessTokenIssuer(ring, 3600);
  });
  afterAll(() => store.close());

  /** What the gateway does with the published key: RS256 pinned, issuer and audience checked. */
  async function verifyAsGateway(token: string) {
    const [published] = (await issuer.published()).keys;
    return jwt.verify(token, published!.publicKeyPem, {
      algorithms: ['RS256'],
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
  }

  it('carries sub, wid, the session generation, issuer, audience, a one-hour expiry and the kid header', async () => {
    const token = await issuer.issue(user, 3);
    const decoded = jwt.decode(token, { complete: true })!;
    expect(decoded.header).toMatchObject({ alg: 'RS256', kid: key.kid });
    const payload = decoded.payload as jwt.JwtPayload;
    expect(payload).toMatchObject({ sub: 'usr_1', wid: 'ws_1', gen: 3, iss: 'crm-auth', aud: 'crm-api' });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('verifies with the published public key', async () => {
    expect(await verifyAsGateway(await issuer.issue(user, 0))).toMatchObject({ sub: 'usr_1' });
    expect(await issuer.published()).toMatchObject({
      issuer: 'crm-auth',
      audience: 'crm-api',
      keys: [{ kid: key.kid, algorithm: 'RS256' }],
    });
  });

  it('refuses a token with alg none', async () => {
    const unsigned = jwt.sign({ wid: 'ws_1' }, '', {
      algorithm: 'none',
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    await expect(verifyAsGateway(unsigned)).rejects.toThrow();
    await expect(issuer.verify(unsigned)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses a token signed by another key', async () => {
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const forged = jwt.sign({ wid: 'ws_1' }, otherKey, {
      algorithm: 'RS256',
      keyid: key.kid,
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    await expect(verifyAsGateway(forged)).rejects.toThrow();
    await expect(issuer.verify(forged)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const confused = jwt.sign({ wid: 'ws_1' }, Buffer.from(key.publicKeyPem), {
      algorithm: 'HS256',
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    await expect(issuer.verify(confused)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it('refuses an expired token', async () => {
    const expired = new AccessTokenIssuer(ring, 1);
    const token = jwt.sign({ wid: 'ws_1', exp: Math.floor(Date.now() / 1000) - 10 }, key.privateKeyPem, {
      algorithm: 'RS256',
      subject: 'usr_1',
      issuer: ACCESS_TOKEN_ISSUER,
      audience: ACCESS_TOKEN_AUDIENCE,
    });
    await expect(expired.verify(token)).rejects.toMatchObject({ kind: 'unauthenticated' });
  });
});
