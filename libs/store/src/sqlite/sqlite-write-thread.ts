/**
 * SQLite answers synchronously, so a commit of a thousand documents (an import's batch, a batch
 * write) holds the event loop for tens of milliseconds, and every other tenant's call queued behind
 * it waits that long (issue 36 item 8: a list went from 11 ms p99 to 140 ms beside an import). Large
 * commits run here instead: on one worker thread with its own connection to the file, while the
 * event loop goes on serving reads (on the read pool) and I/O. The adapter lets no write of its own
 * connection start while one runs (SQLite has one writer; its busy handler would sleep on the loop).
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CollectionDefinition, StoreError } from '../port';
import type { AdapterWrite } from '../store-adapter';
import { receivedError, type SentError } from './sqlite-read-pool';

/** A write as it crosses to the thread: its collection by name. */
export type SentWrite = Omit<AdapterWrite, 'collection'> & { collection: string };

/** main → thread */
export type WriteRequest = { type: 'define'; definition: CollectionDefinition<any> } | { type: 'commit'; id: number; writes: SentWrite[] };

/** thread → main */
export type WriteReply =
  { type: 'ready' } | { type: 'failed'; message: string } | { type: 'done'; id: number } | { type: 'error'; id: number; error: SentError };

function workerScript(): string {
  const beside = join(__dirname, 'sqlite-write-worker.js');
  return existsSync(beside) ? beside : resolve(__dirname, '../../dist/sqlite/sqlite-write-worker.js');
}

export class SqliteWriteThread {
  private readonly pending = new Map<number, { resolve(): void; reject(error: unknown): void }>();
  private readonly defined = new Set<string>();
  private nextId = 1;
  private stopped = false;

  private constructor(private readonly worker: Worker) {}

  /** Starts the thread and resolves once its connection is open. */
  static start(file: string, collections: CollectionDefinition<any>[]): Promise<SqliteWriteThread> {
    const worker = new Worker(workerScript(), { workerData: { file, collections } });
    const thread = new SqliteWriteThread(worker);
    for (const definition of collections) thread.defined.add(definition.name);
    return new Promise((resolve, reject) => {
      worker.on('message', (reply: WriteReply) => {
        if (reply.type === 'ready') resolve(thread);
        else if (reply.type === 'failed')
          reject(new StoreError('unavailable', `The write thread could not open ${file}: ${reply.message}`));
        else thread.settle(reply);
      });
      worker.on('error', reject);
      worker.on('exit', (code) => {
        thread.stopped = true;
        for (const waiting of thread.pending.values())
          waiting.reject(new StoreError('unavailable', `The write thread stopped (exit code ${code})`));
        thread.pending.clear();
      });
    });
  }

  /** False once the thread has stopped: commits then run on the event loop again. */
  get running(): boolean {
    return !this.stopped;
  }

  /** Commits `writes` as one transaction on the thread; fails as the adapter's own commit would. */
  commit(writes: AdapterWrite[]): Promise<void> {
    if (this.stopped) return Promise.reject(new StoreError('unavailable', 'The write thread has stopped'));
    const sent = writes.map((write): SentWrite => {
      const definition = write.collection;
      if (!this.defined.has(definition.name)) {
        this.defined.add(definition.name);
        this.worker.postMessage({ type: 'define', definition } satisfies WriteRequest);
      }
      return { ...write, collection: definition.name } as SentWrite;
    });
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'commit', id, writes: sent } satisfies WriteRequest);
    });
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.worker.terminate();
  }

  private settle(reply: Extract<WriteReply, { id: number }>): void {
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if (reply.type === 'done') waiting?.resolve();
    else waiting?.reject(receivedError(reply.error));
  }
}
