/**
 * The store's read workers (SQLite reads run on worker threads, libs/store sqlite-read-pool.ts) as
 * gauges read at each scrape: reads running, and reads waiting for a worker. Waiting reads that stay
 * up mean the workers are too few for the load (SQLITE_READ_WORKERS) or one tenant's reads are heavy.
 */
import type { DocumentStore } from '@crm/store';
import { gauge } from '@crm/telemetry';

/** The store the gauges read; the latest opened (one per process outside tests). */
let observed: DocumentStore | undefined;

const queue = () => observed?.readQueue() ?? { workers: 0, running: 0, waiting: 0 };

gauge('records_store_reads_running', "Reads running on the store's read workers (SQLite).", [], function () {
  this.set(queue().running);
});
gauge('records_store_reads_waiting', "Reads waiting for one of the store's read workers (SQLite).", [], function () {
  this.set(queue().waiting);
});

export function observeReadQueue(store: DocumentStore): void {
  observed = store;
}
