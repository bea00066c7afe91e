/** The entry of a reader thread (reader-threads.ts): reads one file and posts its contacts, or why it could not. */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { isDomainError } from '@crm/observability';
import { readContacts, type FileReadLimits, type ThreadReadKind } from './file-reading';

/**
 * The thread yields the CPU to the service's event loop (which answers every other workspace): on
 * Linux a thread's id is in /proc/thread-self, and a priority set on it applies to that thread only.
 */
function lowerPriority(): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 15);
  } catch {
    // Not Linux, or not allowed: the thread runs at the service's priority.
  }
}

lowerPriority();
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
