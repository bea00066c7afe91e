/**
 * Worker threads doing bulk work (reading an uploaded file, committing an import's batches) give
 * the CPU to their process's event loop, which answers every other workspace's calls, whenever
 * both want it. On Linux a thread's id is in /proc/thread-self, and a priority set on that id
 * applies to that thread only; raising one's own niceness needs no privilege.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Lowers the calling thread's priority to `niceness` (0 to 19); elsewhere than Linux, or when refused, the thread keeps its process's. */
export function lowerThreadPriority(niceness: number): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), niceness);
  } catch {
    // Not Linux, or not allowed: the thread runs at its process's priority.
  }
}
