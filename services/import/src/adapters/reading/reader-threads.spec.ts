import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILE_READ_LIMITS } from '../../application/contact-file-readers';
import { ReaderThreads, type ReaderThreadLimits } from './reader-threads';

/** Thread entries standing in for reader-thread.js (the real one is compiled; cross tests run it). */
const SCRIPTS = {
  answers: `const { parentPort, workerData } = require('node:worker_threads');
    setTimeout(() => parentPort.postMessage({ contacts: [{ row: 1, fields: { email: workerData.kind + '@example.com' } }] }), 300);`,
  hangs: 'setInterval(() => undefined, 1000);',
  grows: 'const kept = []; for (;;) kept.push(new Array(100000).fill({}));',
};

let folder: string;
const script = (name: keyof typeof SCRIPTS) => join(folder, `${name}.js`);
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'reader-threads-'));
  for (const [name, code] of Object.entries(SCRIPTS)) writeFileSync(join(folder, `${name}.js`), code);
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const limits = (overrides: Partial<ReaderThreadLimits> = {}): ReaderThreadLimits => ({
  ...FILE_READ_LIMITS,
  atOnce: 1,
  waiting: 2,
  heapMb: 32,
  timeoutMs: 10_000,
  perWorkspace: 1,
  ...overrides,
});
const file = Buffer.from('BEGIN:VCARD');

describe('reader threads', () => {
  it('reads in a thread and answers its contacts', async () => {
    await expect(new ReaderThreads(limits(), script('answers')).read('vcard', file)).resolves.toEqual([
      { row: 1, fields: { email: 'vcard@example.com' } },
    ]);
  });

  it('answers unavailable past the waiting line of a kind, other kinds unaffected', async () => {
    const threads = new ReaderThreads(limits({ waiting: 1 }), script('answers'));
    const running = threads.read('pdf', file);
    const waiting = threads.read('pdf', file);
    await expect(threads.read('pdf', file)).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(threads.read('vcard', file)).resolves.toHaveLength(1);
    await expect(Promise.all([running, waiting])).resolves.toHaveLength(2);
  });

  it('keeps room in the line for other workspaces when one has its share', async () => {
    const threads = new ReaderThreads(limits(), script('answers'));
    const first = threads.read('pdf', file, undefined, 'ws_busy');
    await expect(threads.read('pdf', file, undefined, 'ws_busy')).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(threads.read('pdf', file, undefined, 'ws_other')).resolves.toHaveLength(1);
    await first;
    await expect(threads.read('pdf', file, undefined, 'ws_busy')).resolves.toHaveLength(1);
  });

  it('stops a thread past the time limit: a file that cannot be read (422)', async () => {
    const threads = new ReaderThreads(limits({ timeoutMs: 1_000 }), script('hangs'));
    await expect(threads.read('vcard', file)).rejects.toMatchObject({
      kind: 'validation_failed',
      message: expect.stringContaining('within 1 s'),
    });
  });

  it('stops a thread past its heap ceiling: a file that cannot be read (422)', async () => {
    const threads = new ReaderThreads(limits({ heapMb: 32 }), script('grows'));
    await expect(threads.read('vcard', file)).rejects.toMatchObject({
      kind: 'validation_failed',
      message: expect.stringContaining('more memory'),
    });
  });
});
