/**
 * A read worker of sqlite-read-pool.ts: one read-only connection to the pool's file, serving the
 * reader adapter's reads one at a time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CollectionDefinition } from '../port';
import { sentError, type ReadReply, type ReadRequest } from './sqlite-read-pool';
import { SqliteStoreAdapter } from './sqlite-store';

const port = parentPort!;
const send = (reply: ReadReply) => port.postMessage(reply);
const { file, collections } = workerData as { file: string; collections: CollectionDefinition<any>[] };

let reader: SqliteStoreAdapter;
try {
  reader = SqliteStoreAdapter.openReader(file, collections);
  port.on('message', (request: ReadRequest) => void serve(request));
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

async function serve(request: ReadRequest): Promise<void> {
  if (request.type === 'define') {
    reader.describe(request.definition);
    return;
  }
  try {
    const definition = reader.definitionNamed(request.collection)!;
    const read = reader[request.method] as (definition: CollectionDefinition<any>, ...args: unknown[]) => Promise<unknown>;
    send({ type: 'done', id: request.id, result: await read.call(reader, definition, ...request.args) });
  } catch (error) {
    send({ type: 'error', id: request.id, error: sentError(error) });
  }
}
