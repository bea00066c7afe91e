/** The messages the import service puts on the bus, and the queues that carry them to workers. */
import type { QueueDefinition } from '@crm/bus';
import type { ChunkRow } from '../domain/contact-row';

export const SPLIT_MESSAGE = 'import.job_split.v1';
export const CHUNK_MESSAGE = 'import.chunk.v1';

/** "Cut this job's file into chunks" — also sent again by the sweeper to re-publish what is missing. */
export interface SplitPayload {
  jobUid: string;
  workspaceId: string;
}

/** One chunk of rows; its index and job make the records idempotency key. */
export interface ChunkPayload {
  jobUid: string;
  workspaceId: string;
  index: number;
  firstRow: number;
  rows: ChunkRow[];
}

/** Deliveries handed back unsettled (a worker crashed mid-chunk) before a message is dead-lettered. */
export const MAX_DELIVERIES = 5;
/** Times the splitter puts one chunk on the bus before it reports the chunk's rows as errors. */
export const MAX_CHUNK_PUBLISHES = 4;

export const splitQueue: QueueDefinition = { name: 'import.splits', bindings: [SPLIT_MESSAGE], maxDeliveries: MAX_DELIVERIES, prefetch: 1 };

/** `retryBudgetMs`: how long a failing chunk is retried (CHUNK_RETRY_BUDGET_MS) before its last attempt. */
export function chunkQueue(prefetch: number, retryBudgetMs: number): QueueDefinition {
  return { name: 'import.chunks', bindings: [CHUNK_MESSAGE], maxDeliveries: MAX_DELIVERIES, prefetch, retryBudgetMs };
}
