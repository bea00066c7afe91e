/** The embedded adapter: one file per upload under `<CRM_DATA_DIR>/import-uploads`. */
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { READ_SLICE_BYTES, type FileStorage, type StoredFileWriter } from './file-storage';

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

export class LocalFileStorage implements FileStorage {
  private readonly directory: string;

  constructor(dataDir: string) {
    this.directory = join(dataDir, 'import-uploads');
    mkdirSync(this.directory, { recursive: true });
  }

  create(fileId: string): StoredFileWriter {
    const path = this.path(fileId);
    const stream = createWriteStream(path, { flags: 'wx' });
    const written = finished(stream);
    written.catch(() => undefined);
    return {
      stream,
      done: async () => {
        await written;
      },
      abort: async () => {
        stream.destroy();
        await written.catch(() => undefined);
        await rm(path, { force: true });
      },
    };
  }

  open(fileId: string) {
    return createReadStream(this.path(fileId), { highWaterMark: READ_SLICE_BYTES });
  }

  async remove(fileId: string): Promise<void> {
    await rm(this.path(fileId), { force: true });
  }

  async close(): Promise<void> {}

  private path(fileId: string): string {
    if (!SAFE_ID.test(fileId)) throw new Error(`invalid file id ${JSON.stringify(fileId)}`);
    return join(this.directory, `${fileId}.csv`);
  }
}
