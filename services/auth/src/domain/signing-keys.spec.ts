import { openStore, type DocumentStore } from '@crm/store';
import { authCollections } from '../store/collections';
import { createRepositories } from '../store/repositories';
import { testPrivateKeyPem } from '../testing/auth-factory';
import type { SigningKeyRepository } from './repositories';
import { signingKeyFromPem, SigningKeyRing } from './signing-keys';

const now = () => new Date();

describe('signing key ring', () => {
  let store: DocumentStore;
  let repository: SigningKeyRepository;

  beforeEach(async () => {
    store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: authCollections });
    repository = createRepositories(store).signingKeys;
  });
  afterEach(() => store.close());

  const kids = async (ring: SigningKeyRing) => (await ring.published()).map((k) => k.kid);

  it('generates one key on first start, agreed on by replicas starting together', async () => {
    const [a, b] = await Promise.all([SigningKeyRing.open(repository, undefined, now), SigningKeyRing.open(repository, undefined, now)]);
    expect((await a.current()).kid).toBe((await b.current()).kid);
    expect(await kids(a)).toEqual([(await a.current()).kid]);
  });

  it('rotates: every replica signs with the new key at once and publishes the new and the previous one', async () => {
    const a = await SigningKeyRing.open(repository, undefined, now);
    const b = await SigningKeyRing.open(repository, undefined, now);
    const first = (await a.current()).kid;
    const rotated = await a.rotate();
    expect(rotated).toEqual({ current: expect.not.stringMatching(first), previous: first });
    expect((await b.current()).kid).toBe(rotated.current);
    expect(await kids(b)).toEqual([rotated.current, first]);

    const again = await b.rotate();
    expect(await kids(a)).toEqual([again.current, rotated.current]);
  });

  it('lets only one of two simultaneous rotations win', async () => {
    const a = await SigningKeyRing.open(repository, undefined, now);
    const results = await Promise.allSettled([a.rotate(), a.rotate()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { kind: 'conflict' } });
    expect(await kids(a)).toHaveLength(2);
  });

  it('makes a newly configured key current and keeps the stored one published as previous', async () => {
    const generated = await SigningKeyRing.open(repository, undefined, now);
    const old = (await generated.current()).kid;
    const configured = await SigningKeyRing.open(repository, testPrivateKeyPem(), now);
    const kid = signingKeyFromPem(testPrivateKeyPem(), new Date()).kid;
    expect((await configured.current()).kid).toBe(kid);
    expect(await kids(generated)).toEqual([kid, old]);
    await expect(configured.rotate()).rejects.toMatchObject({ kind: 'conflict' });
  });
});
