/**
 * The production adapter: uploads in GridFS (bucket `import_uploads`) of the import service's own
 * MongoDB database, so a worker in any pod reads what the server pod received.
 */
import { GridFSBucket, MongoClient } from 'mongodb';
import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import { READ_SLICE_BYTES, type FileStorage, type StoredFileWriter } from './file-storage';

export class GridFsFileStorage implements FileStorage {
  private constructor(
    private readonly client: MongoClient,
    private readonly bucket: GridFSBucket,
  ) {}

  static async open(url: string, database: string): Promise<GridFsFileStorage> {
    const client = await new MongoClient(url).connect();
    return new GridFsFileStorage(client, new GridFSBucket(client.db(database), { bucketName: 'import_uploads' }));
  }

  create(fileId: string): StoredFileWriter {
    const upload = this.bucket.openUploadStream(fileId, { metadata: { fileId } });
    const written = finished(upload);
    written.catch(() => undefined);
    return {
      stream: upload,
      done: async () => {
        await written;
      },
      abort: async () => {
        await upload.abort().catch(() => undefined);
        await this.remove(fileId);
      },
    };
  }

  open(fileId: string) {
    // Newest revision of the name; a PassThrough so that a missing file is a stream error, not a throw.
    const out = new PassThrough({ highWaterMark: READ_SLICE_BYTES });
    const download = this.bucket.openDownloadStreamByName(fileId);
    download.on('error', (error) => out.destroy(error));
    return download.pipe(out);
  }

  async remove(fileId: string): Promise<void> {
    for (const file of await this.bucket.find({ filename: fileId }).toArray()) {
      await this.bucket.delete(file._id).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
