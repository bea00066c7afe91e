/**
 * One chunk's call to records' idempotent BatchCreateContacts. On a chunk's last attempt a failed
 * call is not the end: an earlier attempt may have committed and lost its answer, so the batch is
 * looked up by its idempotency key before anything is written off.
 */
import type { CallerContext, recordsV1 } from '@crm/grpc';
import { isDomainError } from '@crm/observability';
import type { RecordsClient } from './ports';

const BATCH_TIMEOUT_MS = 60_000;
const LOOKUP_TIMEOUT_MS = 15_000;
/**
 * How long after its last sign of life (a publish, a claim, a batch begun) a chunk may still have
 * a worker on it: twice a batch's call and lookup. Only then is it given up on.
 */
export const CHUNK_LEASE_MS = 2 * (BATCH_TIMEOUT_MS + LOOKUP_TIMEOUT_MS);

/** The chunk's batch was never created: writing its rows off as not imported is the truth. */
export class BatchNeverCreated extends Error {
  constructor(cause: unknown) {
    super(`the batch was not created: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/**
 * Rows per call to records. A chunk's rows go as several batches, one after another, and records
 * takes one batch at a time from its bulk lane (records' bulk-lane.ts), so a batch's main-thread
 * work (decoding, checks, handing its documents to the store's write thread) is one slice that
 * another workspace's request may wait behind. Chosen in `npm run bench -- --only bulk-isolation`:
 * when records committed on its event loop (local cluster; 16 ms p99 idle), 500 rows held
 * another workspace's list to 441 ms p99, 250 rows to 152 ms at 0.93 of the 500-row import's
 * speed, 100 rows to 113 ms at 0.78. With the write thread (`npm start`, same hour, alternating),
 * 500 rows still cost that list more than they give the import: its p99 beside the import 46-49 ms
 * against 33-37 (15 idle), the import alone 4,855-5,040 rows/s against 4,008-4,210.
 */
export const RECORDS_BATCH_ROWS = 250;

/** The idempotency key of a chunk's `slice`-th batch. */
export function batchKey(jobUid: string, chunkIndex: number, slice: number): string {
  return `${jobUid}:${chunkIndex}:${slice}`;
}

/** A chunk's rows as the batches it sends, in order. */
export function batchSlices<T>(rows: readonly T[]): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < rows.length; start += RECORDS_BATCH_ROWS) slices.push(rows.slice(start, start + RECORDS_BATCH_ROWS));
  return slices;
}

/**
 * Creates the batch (or gets the stored answer of the call that did). When `lastAttempt` and the
 * call fails, answers what an earlier attempt stored, throws BatchNeverCreated when none did, and
 * the call's own error when records cannot say.
 */
export async function createContactBatch(
  records: RecordsClient,
  request: Partial<recordsV1.BatchCreateContactsRequest> & { idempotencyKey: string },
  context: Partial<CallerContext>,
  lastAttempt: boolean,
): Promise<recordsV1.BatchCreateContactsResponse> {
  try {
    return await records.call('BatchCreateContacts', request, context, { timeoutMs: BATCH_TIMEOUT_MS });
  } catch (error) {
    if (!lastAttempt || (isDomainError(error) && error.kind !== 'unavailable' && error.kind !== 'internal')) throw error;
    const stored = await recallContactBatch(records, request.idempotencyKey, context);
    if (stored === 'never created') throw new BatchNeverCreated(error);
    if (stored === 'unknown') throw error;
    return stored;
  }
}

/** The stored answer of the batch with this key, 'never created', or 'unknown' when records cannot answer. */
export async function recallContactBatch(
  records: RecordsClient,
  idempotencyKey: string,
  context: Partial<CallerContext>,
): Promise<recordsV1.BatchCreateContactsResponse | 'never created' | 'unknown'> {
  try {
    const stored = await records.call('GetContactBatch', { idempotencyKey }, context, { timeoutMs: LOOKUP_TIMEOUT_MS });
    return { ...stored, replayed: true };
  } catch (error) {
    return isDomainError(error) && error.kind === 'not_found' ? 'never created' : 'unknown';
  }
}
