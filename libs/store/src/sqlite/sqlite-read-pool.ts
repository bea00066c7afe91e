/**
 * SQLite answers synchronously, so a read that takes 60 ms (a counted query over a workspace's
 * custom fields, an aggregate) holds the whole process for 60 ms: every other tenant's call queued
 * behind it waits, however small. The pool runs reads on worker threads instead, each with its own
 * read-only connection to the same file (in WAL mode readers never wait for the writer, and each
 * read sees every commit made before it started), and leaves the event loop to I/O and writes.
 *
 * Fair between tenants: a workspace runs reads on at most all workers but one, and waiting
 * workspaces take turns, so one tenant's burst of heavy reads always leaves a worker free for the
 * others (the price: a workspace alone never uses the last worker).
 */
import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CollectionDefinition, ReadQueue, StoreError, StoreErrorCode } from '../port';

const REPLACE_RETRY_MS = 1_000;

export type ReadMethod = 'find' | 'count' | 'findPage' | 'aggregate';

/** main → worker */
export type ReadRequest =
  | { type: 'define'; definition: CollectionDefinition<any> }
  | { type: 'read'; id: number; method: ReadMethod; collection: string; args: unknown[] };

/** worker → main */
export type ReadReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'done'; id: number; result: unknown }
  | { type: 'error'; id: number; error: SentError };

export interface SentError {
  message: string;
  /** Set when the error is a StoreError. */
  code?: StoreErrorCode;
  fields?: string[];
}

interface Task {
  id: number;
  tenant: string;
  method: ReadMethod;
  collection: string;
  args: unknown[];
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

interface PoolWorker {
  worker: Worker;
  task?: Task;
}

/**
 * The worker's compiled script. Beside this file when it runs compiled; from the TypeScript sources
 * (jest), the build's copy (`npm test` builds first).
 */
function workerScript(): string {
  const beside = join(__dirname, 'sqlite-read-worker.js');
  return existsSync(beside) ? beside : resolve(__dirname, '../../dist/sqlite/sqlite-read-worker.js');
}

export class SqliteReadPool {
  private readonly idle: PoolWorker[] = [];
  private readonly busy = new Set<PoolWorker>();
  /** Tasks waiting, by workspace; the map's order is the order workspaces take turns in. */
  private readonly waiting = new Map<string, Task[]>();
  private readonly runningByTenant = new Map<string, number>();
  private readonly definitions = new Map<string, CollectionDefinition<any>>();
  private nextId = 1;
  private closing = false;
  /** Callers of `settled` waiting for the pool to have nothing to do. */
  private settledWaiters: (() => void)[] = [];

  private constructor(
    private readonly file: string,
    private readonly size: number,
  ) {}

  /** Starts `size` workers and resolves once each has opened its connection. */
  static async start(file: string, collections: CollectionDefinition<any>[], size: number): Promise<SqliteReadPool> {
    const pool = new SqliteReadPool(file, size);
    for (const definition of collections) pool.definitions.set(definition.name, definition);
    try {
      await Promise.all(Array.from({ length: size }, () => pool.startWorker()));
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** How many reads of one workspace may run at once. */
  private get perTenant(): number {
    return Math.max(1, this.size - 1);
  }

  /** Runs `method` of the reader adapter on a worker; `tenant` is the workspace the read is of ('' for none). */
  run<T>(tenant: string, method: ReadMethod, definition: CollectionDefinition<any>, args: unknown[]): Promise<T> {
    if (this.closing) return Promise.reject(new StoreError('unavailable', 'The store is closed'));
    if (!this.definitions.has(definition.name)) {
      this.definitions.set(definition.name, definition);
      for (const worker of [...this.idle, ...this.busy]) worker.worker.postMessage({ type: 'define', definition } satisfies ReadRequest);
    }
    return new Promise<T>((resolve, reject) => {
      const task: Task = {
        id: this.nextId++,
        tenant,
        method,
        collection: definition.name,
        args,
        resolve: resolve as (r: unknown) => void,
        reject,
      };
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(task);
      else this.waiting.set(tenant, [task]);
      this.dispatch();
    });
  }

  /** The reads running and waiting now. */
  queue(): ReadQueue {
    let waiting = 0;
    for (const tasks of this.waiting.values()) waiting += tasks.length;
    return { workers: this.idle.length + this.busy.size, running: this.busy.size, waiting };
  }

  /** Resolves once no read runs or waits, or after `maxWaitMs`. */
  settled(maxWaitMs: number): Promise<void> {
    if (this.busy.size === 0 && this.waiting.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.settledWaiters = this.settledWaiters.filter((waiter) => waiter !== done);
        resolve();
      };
      const timer = setTimeout(done, maxWaitMs);
      this.settledWaiters.push(done);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const queue of this.waiting.values()) for (const task of queue) task.reject(new StoreError('unavailable', 'The store is closed'));
    this.waiting.clear();
    const workers = [...this.idle, ...this.busy];
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private dispatch(): void {
    while (this.idle.length > 0) {
      const task = this.nextTask();
      if (!task) return;
      const worker = this.idle.pop()!;
      worker.task = task;
      this.busy.add(worker);
      this.runningByTenant.set(task.tenant, (this.runningByTenant.get(task.tenant) ?? 0) + 1);
      worker.worker.postMessage({
        type: 'read',
        id: task.id,
        method: task.method,
        collection: task.collection,
        args: task.args,
      } satisfies ReadRequest);
    }
  }

  /** The first waiting workspace under its share takes its oldest task, and its turn goes to the back. */
  private nextTask(): Task | undefined {
    for (const [tenant, queue] of this.waiting) {
      if ((this.runningByTenant.get(tenant) ?? 0) >= this.perTenant) continue;
      const task = queue.shift()!;
      this.waiting.delete(tenant);
      if (queue.length > 0) this.waiting.set(tenant, queue);
      return task;
    }
    return undefined;
  }

  private finish(worker: PoolWorker): Task | undefined {
    const task = worker.task;
    worker.task = undefined;
    this.busy.delete(worker);
    if (task) {
      const running = (this.runningByTenant.get(task.tenant) ?? 1) - 1;
      if (running > 0) this.runningByTenant.set(task.tenant, running);
      else this.runningByTenant.delete(task.tenant);
    }
    // After the task's own callbacks (a microtask later), so its answer goes out before a waiting writer starts.
    if (this.busy.size === 0 && this.waiting.size === 0 && this.settledWaiters.length > 0) {
      queueMicrotask(() => {
        if (this.busy.size === 0 && this.waiting.size === 0) for (const waiter of [...this.settledWaiters]) waiter();
      });
    }
    return task;
  }

  /** Starts a worker in place of one that stopped, trying again every second until one starts (reads wait meanwhile). */
  private replaceWorker(): void {
    this.startWorker().catch(() => {
      if (!this.closing) setTimeout(() => !this.closing && this.replaceWorker(), REPLACE_RETRY_MS).unref();
    });
  }

  private startWorker(): Promise<void> {
    const worker: PoolWorker = {
      worker: new Worker(workerScript(), { workerData: { file: this.file, collections: [...this.definitions.values()] } }),
    };
    return new Promise((resolve, reject) => {
      let started = false;
      worker.worker.on('message', (reply: ReadReply) => {
        switch (reply.type) {
          case 'ready':
            started = true;
            this.idle.push(worker);
            resolve();
            this.dispatch();
            return;
          case 'failed':
            reject(new StoreError('unavailable', `A read worker could not open ${this.file}: ${reply.message}`));
            return;
          case 'done':
            this.finish(worker)?.resolve(reply.result);
            break;
          case 'error':
            this.finish(worker)?.reject(receivedError(reply.error));
            break;
        }
        if (!this.closing) {
          this.idle.push(worker);
          this.dispatch();
        }
      });
      worker.worker.on('error', (error) => {
        if (!started) reject(error);
      });
      worker.worker.on('exit', (code) => {
        const index = this.idle.indexOf(worker);
        if (index >= 0) this.idle.splice(index, 1);
        const task = this.finish(worker);
        if (this.closing) return;
        task?.reject(new StoreError('unavailable', `A read worker stopped (exit code ${code})`));
        // A worker that ran is replaced; one that never started has already failed the start.
        if (started) this.replaceWorker();
      });
    });
  }
}

export function receivedError(sent: SentError): Error {
  return sent.code ? new StoreError(sent.code, sent.message, sent.fields) : new Error(sent.message);
}

/** The error a worker sends back for one a read threw. */
export function sentError(error: unknown): SentError {
  if (error instanceof StoreError) return { message: error.message, code: error.code, ...(error.fields && { fields: error.fields }) };
  return { message: error instanceof Error ? error.message : String(error) };
}
