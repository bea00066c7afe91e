/**
 * Worker threads doing bulk work (reading an uploaded file, committing an import's batches) give
 * the CPU to their process's event loop, which answers every other workspace's calls, whenever
 * both want it. On Linux a thread's id is in /proc/thread-self, and a priority set on that id
 * applies to that thread only; raising one's own niceness needs no privilege.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Niceness of a thread that reads an uploaded file: far below the event loop. */
export const READER_THREAD_NICENESS = 15;
/**
 * Niceness of the SQLite write thread: below the event loop, but it also commits interactive
 * writes, so not as far as a reader. Measured beside a 100,000-row import (bulk-isolation bench,
 * a 2-core machine): another workspace's list p99 65-73 ms at 0, 47-69 at 10, 47-62 at 5; the
 * import beside it kept 0.72-0.87 of its speed at 0, 0.63-0.79 at 10, 0.74-0.77 at 5.
 */
export const WRITE_THREAD_NICENESS = 5;

/** Lowers the calling thread's priority to `niceness`; elsewhere than Linux, or when refused, the thread keeps its process's. */
export function lowerThreadPriority(niceness: number): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), niceness);
  } catch {
    // Not Linux, or not allowed: the thread runs at its process's priority.
  }
}
