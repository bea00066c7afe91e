import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineCollection, StoreError, type DocumentStore, type WriteOp } from '../port';
import { createDocumentStore } from '../scoped-store';
import { SqliteStoreAdapter } from './sqlite-store';
import { WRITE_THREAD_NICENESS } from './sqlite-write-thread';

const notes = defineCollection<{ id: string; workspaceId?: string; rank: number; body: string }>({
  name: 'notes',
  scope: 'workspace',
  fields: { rank: 'number', body: 'string' },
  textSearch: ['body'],
  indexes: [{ fields: ['rank'], unique: true }],
});

const BODY = 'a note long enough to take a moment to index, as an imported contact would be. '.repeat(2);
let next = 0;
/** A commit of `n` new notes (a batch's size: far past what runs on the event loop). */
const inserts = (n: number): WriteOp[] =>
  Array.from({ length: n }, () => {
    next += 1;
    return { kind: 'insert' as const, collection: notes, document: { id: `n${next}`, rank: next, body: `${BODY} word${next}` } };
  });

/** A thread's niceness: field 19 of its stat, counted after the parenthesised name (Linux). */
function niceness(task: string): number {
  const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('SQLite writes on the write thread', () => {
  let dir: string;
  let store: DocumentStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'crm-write-thread-'));
    store = createDocumentStore(await SqliteStoreAdapter.open(join(dir, 'notes.db'), [notes], 1));
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('run on a thread of lower priority than the event loop', () => {
    expect(readdirSync('/proc/self/task').map(niceness)).toContain(WRITE_THREAD_NICENESS);
    // The event loop's thread (the process's own id) keeps its priority.
    expect(niceness(String(process.pid))).toBeLessThan(WRITE_THREAD_NICENESS);
  });

  it('leave the event loop turning while they commit, and are read back once they have', async () => {
    const ws = store.forWorkspace('a');
    const before = await ws.count(notes, []);
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    const commits = [ws.commit(inserts(3_000)), ws.commit(inserts(3_000))];
    await Promise.all(commits);
    clearInterval(ticking);
    // On the event loop each commit would hold it from start to end: no timer between.
    expect(turns).toBeGreaterThan(0);
    expect(await ws.count(notes, [])).toBe(before + 6_000);
    expect(await ws.count(notes, [{ field: 'body', op: 'contains_text', value: `word${next}` }])).toBe(1);
  });

  it('keep the order of writes: a write made after a large commit began lands after it', async () => {
    const ws = store.forWorkspace('b');
    const large = ws.commit(inserts(500));
    const last = next;
    // A single write: it would take the rank the large commit holds, had it gone first.
    const single = ws.insert(notes, { id: 'after', rank: last, body: 'after' }).catch((error: unknown) => error);
    await large;
    expect(await single).toBeInstanceOf(StoreError);
    expect(((await single) as StoreError).code).toBe('duplicate');
    expect(await ws.count(notes, [])).toBe(500);
  });

  it('fail as a commit on the event loop does, and change nothing: a duplicate, a conflict', async () => {
    const ws = store.forWorkspace('c');
    const taken = inserts(100);
    await ws.commit(taken);
    const duplicate = await ws.commit([...inserts(99), taken[0]!]).catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(StoreError);
    expect((duplicate as StoreError).code).toBe('duplicate');
    const conflict = await ws
      .commit([
        ...inserts(99),
        { kind: 'update', collection: notes, id: 'missing', change: { set: { rank: -1 } }, where: [{ field: 'rank', op: 'eq', value: 0 }] },
      ])
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(StoreError);
    expect((conflict as StoreError).code).toBe('conflict');
    expect(await ws.count(notes, [])).toBe(100);
  });

  it('answer each write method as the event loop would', async () => {
    const ws = store.forWorkspace('e');
    expect(await ws.insert(notes, { id: 'e1', rank: -10, body: 'one' })).toMatchObject({ id: 'e1', rank: -10, workspaceId: 'e' });
    expect(await ws.update(notes, 'e1', { set: { body: 'changed' } })).toMatchObject({ id: 'e1', body: 'changed' });
    expect(await ws.update(notes, 'missing', { set: { body: 'x' } })).toBeNull();
    expect(await ws.upsert(notes, { id: 'e2', rank: -11, body: 'two' }, { set: { body: 'again' } })).toMatchObject({ body: 'two' });
    expect(await ws.upsert(notes, { id: 'e2', rank: -11, body: 'two' }, { set: { body: 'again' } })).toMatchObject({ body: 'again' });
    expect(await ws.updateMany(notes, [{ field: 'rank', op: 'lt', value: 0 }], { inc: { rank: -100 } })).toBe(2);
    expect(await ws.deleteMany(notes, [{ field: 'rank', op: 'lt', value: -100 }])).toBe(2);
    expect(await ws.count(notes, [])).toBe(0);
  });

  it('are waited for by close', async () => {
    const closing = mkdtempSync(join(tmpdir(), 'crm-write-thread-close-'));
    const own = createDocumentStore(await SqliteStoreAdapter.open(join(closing, 'notes.db'), [notes], 1));
    const committed = own.forWorkspace('d').commit(inserts(2_000));
    await own.close();
    await committed;
    const reopened = createDocumentStore(await SqliteStoreAdapter.open(join(closing, 'notes.db'), [notes]));
    expect(await reopened.forWorkspace('d').count(notes, [])).toBe(2_000);
    await reopened.close();
    rmSync(closing, { recursive: true, force: true });
  });
});
