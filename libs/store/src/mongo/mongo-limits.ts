/**
 * What every MongoDB connection and operation of the adapter is bound by, in one place: how long
 * an operation may run on the server (maxTimeMS) and wait on a socket, the write concern that
 * makes a write survive a failover, and which server errors mean "try again" (a failover, a
 * stepdown, a lost primary, a time limit), so the caller answers 503 instead of 500.
 */
import type { ConnectOptions } from 'mongoose';

/** A query, count or update running longer than this on the server is stopped there. */
export const OPERATION_TIME_LIMIT_MS = 10_000;
/** A socket silent this long is given up on (above the operation limit, so the server's answer comes first). */
const SOCKET_TIMEOUT_MS = 20_000;
const SERVER_SELECTION_TIMEOUT_MS = 10_000;
/** How long a majority write waits for the other members before the write is reported as not acknowledged. */
const WRITE_CONCERN_TIMEOUT_MS = 10_000;

/**
 * The connection's options: majority writes, journaled (a write acknowledged before a failover is
 * on the new primary), majority reads, and the timeouts above.
 */
export function mongoConnectionOptions(database: string, serverSelectionTimeoutMs = SERVER_SELECTION_TIMEOUT_MS): ConnectOptions {
  return {
    dbName: database,
    serverSelectionTimeoutMS: serverSelectionTimeoutMs,
    socketTimeoutMS: SOCKET_TIMEOUT_MS,
    writeConcern: { w: 'majority', journal: true, wtimeoutMS: WRITE_CONCERN_TIMEOUT_MS },
    readConcern: { level: 'majority' },
    retryWrites: true,
    retryReads: true,
  };
}

/** Anything with mongoose's Query `maxTimeMS` (find, findOne, countDocuments, the updates and deletes). */
interface TimeBoundable<Q> {
  maxTimeMS(ms: number): Q;
}

/** The query with the server-side time limit set. */
export function bounded<Q extends TimeBoundable<Q>>(query: Q): Q {
  return query.maxTimeMS(OPERATION_TIME_LIMIT_MS);
}

/**
 * Server error codes that mean the operation may succeed if tried again: the primary changed or is
 * stepping down, the node is shutting down or unreachable, or the time limit ran out.
 * (NotWritablePrimary, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary, InterruptedDueToReplStateChange,
 * InterruptedAtShutdown, PrimarySteppedDown, ShutdownInProgress, HostUnreachable, HostNotFound,
 * NetworkTimeout, SocketException, MaxTimeMSExpired, WriteConcernFailed.)
 */
const RETRYABLE_CODES = new Set([10107, 13435, 13436, 11602, 11600, 189, 91, 6, 7, 89, 9001, 50, 64]);
const RETRYABLE_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'ResetPool'];
const UNAVAILABLE_NAMES = /Network|ServerSelection|NotConnected|TopologyClosed|PoolCleared|Timeout/;

/** Whether a driver error means the store is (for now) unavailable rather than the request wrong. */
export function isUnavailable(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown; message?: unknown; errorLabels?: unknown; errorLabelSet?: unknown };
  if (typeof e?.code === 'number' && RETRYABLE_CODES.has(e.code)) return true;
  const labels = Array.isArray(e?.errorLabels) ? e.errorLabels : e?.errorLabelSet instanceof Set ? [...e.errorLabelSet] : [];
  if (labels.some((label) => RETRYABLE_LABELS.includes(String(label)))) return true;
  return (typeof e?.name === 'string' && UNAVAILABLE_NAMES.test(e.name)) || /buffering timed out/.test(String(e?.message));
}
