/**
 * Checkpoints a SQLite file's write-ahead log from a worker thread with its own connection.
 *
 * With `synchronous = NORMAL` a commit does not fsync; a checkpoint (copying the log into the
 * database file) does, and by default it runs inside whichever commit crosses 1,000 log pages:
 * on the event loop, once every bulk write or so. Here passive checkpoints run beside the writers
 * instead, and the writer's own automatic checkpoint stays only as a backstop at a larger log.
 */
import { Worker } from 'node:worker_threads';

/** The worker's whole program; it is handed the driver's path, so it resolves nothing itself. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: workerData.busyTimeoutMs });
db.exec('PRAGMA synchronous = NORMAL');
// One statement for the worker's life: better-sqlite3 12 on Node 24 aborts when one is
// garbage-collected (see keep-alive.ts); the worker's module scope holds it until the worker exits.
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const checkpoint = () => {
  try {
    passive.get();
  } catch (error) {
    // Busy or locked: another process sharing the file is checkpointing; the next tick will do.
    if (!/^SQLITE_(BUSY|LOCKED)/.test(String(error && error.code))) parentPort.postMessage({ error: String(error && error.message) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  /** Runs a last checkpoint and stops the worker. */
  stop(): Promise<void>;
}

export function startWalCheckpointer(
  file: string,
  options: { intervalMs: number; busyTimeoutMs: number; onError?: (message: string) => void },
): WalCheckpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { driver: require.resolve('better-sqlite3'), file, intervalMs: options.intervalMs, busyTimeoutMs: options.busyTimeoutMs },
  });
  worker.on('message', (message: { error?: string }) => {
    if (message.error) options.onError?.(message.error);
  });
  // A worker that cannot run leaves the backstop checkpoint in charge; nothing else depends on it.
  worker.on('error', (error) => options.onError?.(error.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  // After the listeners: adding a 'message' listener refs the worker again.
  worker.unref();
  return {
    async stop() {
      worker.postMessage('stop');
      const timeout = setTimeout(() => void worker.terminate(), 5000);
      await exited;
      clearTimeout(timeout);
    },
  };
}
