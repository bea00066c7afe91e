import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { READ_SLICE_BYTES } from './file-storage';
import { LocalFileStorage } from './local-file-storage';

describe('LocalFileStorage', () => {
  let dataDir: string;
  let storage: LocalFileStorage;

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'crm-file-storage-'));
    storage = new LocalFileStorage(dataDir);
  });

  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  async function store(fileId: string, bytes: Buffer): Promise<void> {
    const writer = storage.create(fileId);
    writer.stream.end(bytes);
    await writer.done();
  }

  it('reads a stored file back whole, in slices of READ_SLICE_BYTES at most', async () => {
    const bytes = Buffer.alloc(4 * READ_SLICE_BYTES + 123, 'a,b,c\n');
    await store('upload-1', bytes);

    const slices: Buffer[] = [];
    for await (const slice of storage.open('upload-1')) slices.push(slice as Buffer);

    expect(Buffer.concat(slices).equals(bytes)).toBe(true);
    expect(Math.max(...slices.map((slice) => slice.length))).toBeLessThanOrEqual(READ_SLICE_BYTES);
    expect(slices.length).toBe(5);
  });

  it('forgets a removed file, and a missing file is a stream error', async () => {
    await store('upload-2', Buffer.from('email\nx@example.com\n'));
    await storage.remove('upload-2');

    await expect(async () => {
      for await (const _slice of storage.open('upload-2')) void _slice;
    }).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
