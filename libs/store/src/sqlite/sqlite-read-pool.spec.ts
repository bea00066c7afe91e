import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../open-store';
import { defineCollection, type DocumentStore } from '../port';
import { createDocumentStore } from '../scoped-store';
import { SqliteStoreAdapter } from './sqlite-store';

const notes = defineCollection<{ id: string; workspaceId?: string; rank: number; body: string }>({
  name: 'notes',
  scope: 'workspace',
  fields: { rank: 'number' },
});

/**
 * Enough notes that counting those whose body holds a missing word reads for a while (tens of
 * ms). A word not asked before each time: a count is kept while the workspace's data stands.
 */
const HEAVY_NOTES = 60_000;
let asked = 0;
const heavyCount = (store: DocumentStore) =>
  store.forWorkspace('heavy').count(notes, [{ field: 'body', op: 'contains_text', value: `absent-word-${(asked += 1)}` }]);

describe('SQLite reads on worker threads', () => {
  let dir: string;
  let adapter: SqliteStoreAdapter;
  let store: DocumentStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crm-read-pool-'));
    adapter = await SqliteStoreAdapter.open(join(dir, 'notes.db'), [notes], 2);
    store = createDocumentStore(adapter);
    const body = 'a note long enough to take a moment to search through, as a real one would be. '.repeat(3);
    for (let start = 0; start < HEAVY_NOTES; start += 5_000) {
      await store.forWorkspace('heavy').commit(
        Array.from({ length: 5_000 }, (_, i) => ({
          kind: 'insert' as const,
          collection: notes,
          document: { id: `h${start + i}`, rank: start + i, body },
        })),
      );
    }
    await store.forWorkspace('light').insert(notes, { id: 'l1', rank: 1, body: 'light' });
  }, 120_000);

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leave the event loop free while a heavy read runs', async () => {
    let timerFired = false;
    const read = heavyCount(store).then(() => timerFired);
    setTimeout(() => (timerFired = true), 0);
    // On the event loop, the count would hold the loop until it answered, and the timer after it.
    expect(await read).toBe(true);
  });

  it('keep a worker for another workspace while one workspace queues heavy reads', async () => {
    const order: string[] = [];
    const heavy = Array.from({ length: 4 }, (_, i) => heavyCount(store).then(() => order.push(`heavy ${i}`)));
    await new Promise((resolve) => setImmediate(resolve));
    const light = store
      .forWorkspace('light')
      .get(notes, 'l1')
      .then((note) => order.push(`light ${note?.id}`));
    await Promise.all([...heavy, light]);
    // Without the share, the light read would wait for two heavy reads on two busy workers.
    expect(order[0]).toBe('light l1');
    expect(order).toHaveLength(5);
  });

  it('see every commit made before they start', async () => {
    const light = store.forWorkspace('light');
    for (let rank = 2; rank < 40; rank += 1) {
      await light.insert(notes, { id: `l${rank}`, rank, body: 'light' });
      expect((await light.get(notes, `l${rank}`))?.rank).toBe(rank);
      expect(await light.count(notes)).toBe(rank);
    }
  });

  it('go on after a worker stops: its read fails as unavailable, and a new worker takes its place', async () => {
    type Worker = { worker: { terminate(): Promise<number> } };
    const pool = (adapter as unknown as { reads: { idle: Worker[]; busy: Set<Worker> } }).reads;
    const read = heavyCount(store);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const [running] = [...pool.busy];
    await running!.worker.terminate();
    await expect(read).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable' });
    const replaced = async () => {
      for (;;) {
        if (pool.idle.length + pool.busy.size === 2) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    await replaced();
    expect(await store.forWorkspace('light').count(notes)).toBeGreaterThan(0);
    expect(await heavyCount(store)).toBe(0);
  });

  it('count the reads running and waiting, for the metrics', async () => {
    expect(store.readQueue()).toEqual({ workers: 2, running: 0, waiting: 0 });
    const reads = Array.from({ length: 4 }, () => heavyCount(store));
    // One workspace takes at most all workers but one: 1 runs, 3 wait.
    expect(store.readQueue()).toEqual({ workers: 2, running: 1, waiting: 3 });
    await Promise.all(reads);
    expect(store.readQueue()).toEqual({ workers: 2, running: 0, waiting: 0 });
  });

  it('say when none is running, so a long write can wait for their answers first', async () => {
    await store.readsSettled(1_000); // nothing running: at once
    let answered = false;
    const read = heavyCount(store).then(() => (answered = true));
    await store.readsSettled(10_000);
    expect(answered).toBe(true);
    await read;
  });

  it('answer reads by id on the event loop (a few page reads), never queued behind the workers', async () => {
    const light = store.forWorkspace('light');
    const heavy = [heavyCount(store), heavyCount(store)];
    expect(store.readQueue()).toEqual({ workers: 2, running: 1, waiting: 1 });
    const got = light.get(notes, 'l1');
    const many = light.getMany(notes, ['l1', 'absent']);
    expect(store.readQueue()).toEqual({ workers: 2, running: 1, waiting: 1 });
    // Any other read goes to a worker: one by another field, and more ids than a lookup takes.
    const byRank = light.find(notes, { where: [{ field: 'rank', op: 'eq', value: 1 }] });
    const manyIds = light.getMany(notes, ['l1', ...Array.from({ length: 50 }, (_, i) => `absent-${i}`)]);
    expect(store.readQueue()).toEqual({ workers: 2, running: 2, waiting: 2 });
    expect(await got).toMatchObject({ id: 'l1', body: 'light' });
    expect((await many).map((note) => note.id)).toEqual(['l1']);
    expect((await byRank).map((note) => note.id)).toEqual(['l1']);
    expect((await manyIds).map((note) => note.id)).toEqual(['l1']);
    await Promise.all(heavy);
  });

  it('refuse reads once the store is closed', async () => {
    const own = await openStore({ location: { kind: 'sqlite', file: join(dir, 'closed.db'), readWorkers: 1 }, collections: [notes] });
    await own.close();
    await expect(own.forWorkspace('light').count(notes)).rejects.toMatchObject({ code: 'unavailable' });
  });
});
