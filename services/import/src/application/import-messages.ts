/** The messages the import service puts on the bus, and the queues that carry them to workers. */
import type { QueueDefinition } from '@crm/bus';
import type { ColumnTarget } from '../domain/column-plan';
import type { ChunkRow } from '../domain/contact-row';

export const SPLIT_MESSAGE = 'import.job_split.v1';
export const CHUNK_MESSAGE = 'import.chunk.v1';

/** "Cut this job's file into chunks" — also sent again by the sweeper to re-publish what is missing. */
export interface SplitPayload {
  jobUid: string;
  workspaceId: string;
}

/**
 * One chunk of rows (its index and job make the records idempotency key): each row's cells once,
 * and the file's column plan once, from which the worker makes each row's fields again
 * (chunk-payload.ts). Rows `firstRow`, `firstRow + 1`, … in the order of `cells`.
 */
export interface ChunkPayload {
  jobUid: string;
  workspaceId: string;
  index: number;
  firstRow: number;
  /** Column index → the contact field it fills (built-in or `customFields.<key>`); other columns are ignored. */
  columns: Record<number, ColumnTarget>;
  /** Each row's cells as in the file. */
  cells: string[][];
  /** Rows whose email an earlier valid row of the file has: row → that earlier row. */
  duplicateOf: Record<number, number>;
  /** Rows the parser could not read as the header's columns: row → why. */
  problems: Record<number, string>;
}

/**
 * A chunk as versions before `ChunkPayload` published it, each row with its fields made by the
 * splitter (three times the bytes of the cells alone). Still read: such messages can be queued
 * or waiting for a retry while workers are upgraded.
 */
export interface ChunkPayloadWithFields {
  jobUid: string;
  workspaceId: string;
  index: number;
  firstRow: number;
  rows: ChunkRow[];
}

/** What a worker may find on the chunk queue. */
export type ReceivedChunkPayload = ChunkPayload | ChunkPayloadWithFields;

/** Deliveries handed back unsettled (a worker crashed mid-chunk) before a message is dead-lettered. */
export const MAX_DELIVERIES = 5;
/** Publishes of one chunk the bus confirmed, after which the splitter gives up on it once idle (CHUNK_LEASE_MS). */
export const MAX_CHUNK_PUBLISHES = 4;

export const splitQueue: QueueDefinition = { name: 'import.splits', bindings: [SPLIT_MESSAGE], maxDeliveries: MAX_DELIVERIES, prefetch: 1 };

/** `retryBudgetMs`: how long a failing chunk is retried (CHUNK_RETRY_BUDGET_MS) before its last attempt. */
export function chunkQueue(prefetch: number, retryBudgetMs: number): QueueDefinition {
  return { name: 'import.chunks', bindings: [CHUNK_MESSAGE], maxDeliveries: MAX_DELIVERIES, prefetch, retryBudgetMs };
}
