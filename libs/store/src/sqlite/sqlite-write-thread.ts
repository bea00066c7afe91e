/**
 * SQLite answers synchronously, so a commit of a thousand documents (an import's batch, a batch
 * write) holds the event loop for tens of milliseconds, and every other tenant's call queued behind
 * it waits that long (issue 36 item 8: a list went from 11 ms p99 to 140 ms beside an import). The
 * adapter's writes run here instead: on one worker thread with the store's one writable connection
 * (besides the read workers' read-only ones), while the event loop goes on serving reads (on the
 * read pool) and I/O. One connection writes everything, so its page cache stays warm: a second
 * writer would find its cache dropped after each of the other's commits (measured: records' CPU per
 * imported row +40% when only large commits came here).
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CollectionDefinition, StoreError } from '../port';
import type { AdapterWrite } from '../store-adapter';
import { receivedError, type SentError } from './sqlite-read-pool';

/**
 * The thread's niceness (thread-priority.ts): below the event loop, but it also commits interactive
 * writes, so not as far as the import's file readers (15). Measured beside a 100,000-row import
 * (bulk-isolation bench, a 2-core machine): another workspace's list p99 65-73 ms at 0, 47-69 at
 * 10, 47-62 at 5; the import beside it kept 0.72-0.87 of its speed at 0, 0.63-0.79 at 10,
 * 0.74-0.77 at 5.
 */
export const WRITE_THREAD_NICENESS = 5;

/** A write as it crosses to the thread: its collection by name. */
export type SentWrite = Omit<AdapterWrite, 'collection'> & { collection: string };

/** The adapter's write methods the thread runs (`commit` takes SentWrites). */
export type WriteMethod = 'insert' | 'updateOne' | 'updateMany' | 'upsert' | 'deleteMany' | 'commit';

/** main → thread */
export type WriteRequest =
  | { type: 'define'; definition: CollectionDefinition<any> }
  | { type: 'write'; id: number; method: WriteMethod; collection: string | null; args: unknown[] };

/** thread → main */
export type WriteReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'error'; id: number; error: SentError };

function workerScript(): string {
  const beside = join(__dirname, 'sqlite-write-worker.js');
  return existsSync(beside) ? beside : resolve(__dirname, '../../dist/sqlite/sqlite-write-worker.js');
}

export class SqliteWriteThread {
  private readonly pending = new Map<number, { resolve(result: unknown): void; reject(error: unknown): void }>();
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

  /** False once the thread has stopped: writes then run on the event loop again. */
  get running(): boolean {
    return !this.stopped;
  }

  /** Runs the adapter's write `method` on the thread; answers and fails as the adapter's own would. */
  run<T>(method: Exclude<WriteMethod, 'commit'>, definition: CollectionDefinition<any>, args: unknown[]): Promise<T> {
    return this.send<T>(method, this.named(definition), args);
  }

  /** Commits `writes` as one transaction on the thread. */
  commit(writes: AdapterWrite[]): Promise<void> {
    const sent = writes.map((write): SentWrite => ({ ...write, collection: this.named(write.collection) }) as SentWrite);
    return this.send<void>('commit', null, [sent]);
  }

  private named(definition: CollectionDefinition<any>): string {
    if (!this.defined.has(definition.name)) {
      this.defined.add(definition.name);
      this.worker.postMessage({ type: 'define', definition } satisfies WriteRequest);
    }
    return definition.name;
  }

  private send<T>(method: WriteMethod, collection: string | null, args: unknown[]): Promise<T> {
    if (this.stopped) return Promise.reject(new StoreError('unavailable', 'The write thread has stopped'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.worker.postMessage({ type: 'write', id, method, collection, args } satisfies WriteRequest);
    });
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.worker.terminate();
  }

  private settle(reply: Extract<WriteReply, { id: number }>): void {
    const waiting = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    if (reply.type === 'done') waiting?.resolve(reply.result);
    else waiting?.reject(receivedError(reply.error));
  }
}
