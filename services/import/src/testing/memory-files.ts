/** File storage in memory, for unit tests of the import pipeline. */
import { PassThrough, Readable } from 'node:stream';
import type { FileStorage } from '../store/file-storage';

export class MemoryFiles implements FileStorage {
  readonly files = new Map<string, Buffer>();
  create(fileId: string) {
    const parts: Buffer[] = [];
    const stream = new PassThrough();
    stream.on('data', (b: Buffer) => parts.push(b));
    return { stream, done: async () => void this.files.set(fileId, Buffer.concat(parts)), abort: async () => undefined };
  }
  open(fileId: string) {
    return Readable.from([this.files.get(fileId)!]);
  }
  async remove(fileId: string) {
    this.files.delete(fileId);
  }
  async close() {}
}
