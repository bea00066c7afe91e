/**
 * The thread of sqlite-write-thread.ts: the store's writable connection to the file (whose schema
 * the adapter has put in place), running the adapter's writes one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '@crm/observability';
import type { CollectionDefinition } from '../port';
import type { AdapterWrite } from '../store-adapter';
import { sentError } from './sqlite-read-pool';
import { SqliteStoreAdapter } from './sqlite-store';
import { WRITE_THREAD_NICENESS, type SentWrite, type WriteReply, type WriteRequest } from './sqlite-write-thread';

const port = parentPort!;
const send = (reply: WriteReply) => port.postMessage(reply);
const { file, collections } = workerData as { file: string; collections: CollectionDefinition<any>[] };

// An import's commits give way to the event loop's reads and calls when both want the CPU.
lowerThreadPriority(WRITE_THREAD_NICENESS);
let committer: SqliteStoreAdapter;
try {
  committer = SqliteStoreAdapter.openCommitter(file, collections);
  port.on('message', (request: WriteRequest) => void serve(request));
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

async function serve(request: WriteRequest): Promise<void> {
  if (request.type === 'define') {
    committer.describe(request.definition);
    return;
  }
  try {
    let result: unknown;
    if (request.method === 'commit') {
      const writes = (request.args[0] as SentWrite[]).map(
        (write) => ({ ...write, collection: committer.definitionNamed(write.collection)! }) as AdapterWrite,
      );
      result = await committer.commit(writes);
    } else {
      const write = committer[request.method] as (definition: CollectionDefinition<any>, ...args: unknown[]) => Promise<unknown>;
      result = await write.call(committer, committer.definitionNamed(request.collection!)!, ...request.args);
    }
    send({ type: 'done', id: request.id, result });
  } catch (error) {
    send({ type: 'error', id: request.id, error: sentError(error) });
  }
}
