import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../open-store';
import { defineCollection, type DocumentStore } from '../port';

const notes = defineCollection<{ id: string; workspaceId?: string; rank: number }>({
  name: 'notes',
  scope: 'workspace',
  fields: { rank: 'number' },
});

describe('a SQLite snapshot', () => {
  let dir: string;
  let store: DocumentStore;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crm-snapshot-'));
    store = await openStore({ location: { kind: 'sqlite', file: join(dir, 'notes.db') }, collections: [notes] });
    await store
      .forWorkspace('w1')
      .commit([1, 2, 3].map((rank) => ({ kind: 'insert', collection: notes, document: { id: `n${rank}`, rank } })));
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the store as of its opening, whatever is inserted, changed or deleted meanwhile', async () => {
    const snapshot = await store.openSnapshot();
    const live = store.forWorkspace('w1');
    await live.insert(notes, { id: 'n4', rank: 4 });
    await live.update(notes, 'n1', { set: { rank: 10 } });
    await live.delete(notes, 'n2');
    const seen = snapshot.forWorkspace('w1');
    expect(await seen.count(notes)).toBe(3);
    expect((await seen.find(notes, { sort: [{ field: 'rank', direction: 'asc' }] })).map((n) => [n.id, n.rank])).toEqual([
      ['n1', 1],
      ['n2', 2],
      ['n3', 3],
    ]);
    await snapshot.close();
    expect(await live.count(notes)).toBe(3);
    expect((await live.get(notes, 'n1'))?.rank).toBe(10);
  });

  it('keeps the tenancy rule', async () => {
    const snapshot = await store.openSnapshot();
    expect(await snapshot.forWorkspace('w2').count(notes)).toBe(0);
    await snapshot.close();
  });

  it('ends without closing the store it came from', async () => {
    const snapshot = await store.openSnapshot();
    await snapshot.close();
    expect(await store.ping()).toBe(true);
    expect(await store.forWorkspace('w1').count(notes)).toBe(3);
  });
});
