/**
 * Where an upload is kept between the upload and the end of its job: a file under CRM_DATA_DIR on
 * the embedded store, GridFS when the store is MongoDB (so every pod sees it). One port, two adapters.
 */
import type { Readable, Writable } from 'node:stream';

/**
 * Bytes the embedded store's file is read in. Each slice is parsed in one synchronous stretch of
 * the event loop (the CSV splitter), so a smaller slice lets interactive requests of the same
 * process in sooner: chosen against 256 KB in `npm run bench -- --only bulk-isolation`, where
 * another workspace's p99 during an import fell and the import kept its speed. Smaller was not
 * measured. GridFS hands over its stored chunks whole (255 KB by default), so there this bounds
 * only the buffer in front of the reader.
 */
export const READ_SLICE_BYTES = 64 * 1024;

export interface StoredFileWriter {
  /** Write the upload's bytes here. */
  stream: Writable;
  /** Resolves once every byte is durable; call after ending `stream`. */
  done(): Promise<void>;
  /** Throws away what was written (a refused or broken upload). */
  abort(): Promise<void>;
}

export interface FileStorage {
  /** Starts storing a new file under `fileId` (unique, chosen by the caller). */
  create(fileId: string): StoredFileWriter;
  open(fileId: string): Readable;
  remove(fileId: string): Promise<void>;
  close(): Promise<void>;
}
