/**
 * The thread of sqlite-write-thread.ts: one writable connection to the file (whose schema the
 * adapter has put in place), committing the adapter's large commits one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CollectionDefinition } from '../port';
import type { AdapterWrite } from '../store-adapter';
import { sentError } from './sqlite-read-pool';
import { SqliteStoreAdapter } from './sqlite-store';
import type { WriteReply, WriteRequest } from './sqlite-write-thread';

const port = parentPort!;
const send = (reply: WriteReply) => port.postMessage(reply);
const { file, collections } = workerData as { file: string; collections: CollectionDefinition<any>[] };

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
    const writes = request.writes.map((write) => ({ ...write, collection: committer.definitionNamed(write.collection)! }) as AdapterWrite);
    await committer.commit(writes);
    send({ type: 'done', id: request.id });
  } catch (error) {
    send({ type: 'error', id: request.id, error: sentError(error) });
  }
}
