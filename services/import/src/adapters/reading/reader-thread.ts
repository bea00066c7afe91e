/** The entry of a reader thread (reader-threads.ts): reads one file and posts its contacts, or why it could not. */
import { parentPort, workerData } from 'node:worker_threads';
import { isDomainError, lowerThreadPriority } from '@crm/observability';
import { readContacts, type FileReadLimits, type ThreadReadKind } from './file-reading';

/** Far below the event loop, which answers every other workspace while a file is read. */
const READER_THREAD_NICENESS = 15;

lowerThreadPriority(READER_THREAD_NICENESS);
const { kind, content, limits } = workerData as { kind: ThreadReadKind; content: Uint8Array; limits: FileReadLimits };
readContacts(kind, content, limits).then(
  (contacts) => parentPort!.postMessage({ contacts }),
  (error: unknown) =>
    parentPort!.postMessage({
      error: isDomainError(error)
        ? { kind: error.kind, message: error.message }
        : { kind: 'validation_failed', message: `The file could not be read: ${error instanceof Error ? error.message : String(error)}` },
    }),
);
