import { openStore, type DocumentStore } from '@crm/store';
import { privacyCollections } from '../store/privacy-collections';
import { SuppressionRepository } from '../store/suppression-repository';
import { SuppressionList } from './suppression-list';

let store: DocumentStore;
beforeEach(async () => {
  store = await openStore({ location: { kind: 'sqlite', file: ':memory:' }, collections: privacyCollections });
});
afterEach(() => store.close());

/** A repository that counts the hashes it is asked to look up. */
function counted(): { repo: SuppressionRepository; hashesLookedUp: () => number } {
  const repo = new SuppressionRepository(store);
  let hashes = 0;
  const listed = repo.listed.bind(repo);
  repo.listed = (workspaceId, asked) => {
    hashes += asked.length;
    return listed(workspaceId, asked);
  };
  return { repo, hashesLookedUp: () => hashes };
}

describe('the suppression list on the write path', () => {
  it('finds a listed email in its workspace only, whatever its case, until it is lifted', async () => {
    const list = new SuppressionList(new SuppressionRepository(store));
    await list.add('ws_a', 'Gone@Example.com', '2026-01-01T00:00:00Z');
    expect(await list.suppressed('ws_a', ['gone@example.com', 'kept@example.com'])).toEqual(new Set(['gone@example.com']));
    expect(await list.suppressed('ws_b', ['gone@example.com'])).toEqual(new Set());
    await expect(list.refuse('ws_a', ['GONE@example.com'])).rejects.toThrow();
    expect(await list.lift('ws_a', 'gone@example.com')).toBe(true);
    expect(await list.suppressed('ws_a', ['gone@example.com'])).toEqual(new Set());
  });

  it('answers a workspace that has suppressed no one without hashing its emails', async () => {
    const { repo, hashesLookedUp } = counted();
    const list = new SuppressionList(repo);
    await list.add('ws_a', 'gone@example.com', '2026-01-01T00:00:00Z');
    expect(await list.suppressed('ws_b', ['gone@example.com', 'other@example.com'])).toEqual(new Set());
    await list.refuse('ws_b', ['gone@example.com']);
    expect(hashesLookedUp()).toBe(0);
    // The workspace that has a list is still looked up by hash.
    expect(await list.suppressed('ws_a', ['gone@example.com'])).toEqual(new Set(['gone@example.com']));
    expect(hashesLookedUp()).toBe(1);
  });
});
