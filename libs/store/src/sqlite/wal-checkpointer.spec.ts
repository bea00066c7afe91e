import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../open-store';
import { defineCollection, type StoredDocument } from '../port';

const notes = defineCollection<StoredDocument>({ name: 'notes', scope: 'global', fields: { n: 'number' } });

describe('WAL checkpoints', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crm-wal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Without the worker the file would not grow before close: ~2 MB stays below the writer's own
  // checkpoint threshold (10,000 pages, ~40 MB).
  it('copy committed writes into the database file from a worker thread', async () => {
    const file = join(dir, 'notes.db');
    const store = await openStore({ location: { kind: 'sqlite', file }, collections: [notes] });
    try {
      const before = statSync(file).size;
      for (let batch = 0; batch < 20; batch++) {
        await store.global().commit(
          Array.from({ length: 100 }, (_, i) => ({
            kind: 'insert' as const,
            collection: notes,
            document: { id: `n${batch}-${i}`, n: i, text: 'x'.repeat(1000) },
          })),
        );
      }
      const deadline = Date.now() + 5000;
      while (statSync(file).size < before + 1_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(statSync(file).size).toBeGreaterThan(before + 1_000_000);
      expect(await store.global().find(notes, { where: [{ field: 'n', op: 'eq', value: 7 }] })).toHaveLength(20);
    } finally {
      await store.close();
    }
  });
});
