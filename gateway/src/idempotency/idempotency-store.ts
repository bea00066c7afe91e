/**
 * Where the gateway keeps Idempotency-Key state: Redis shared by every replica when REDIS_URL is
 * set, a bounded in-memory map otherwise (`npm start`). One entry per (workspace, key): first a
 * claim held while the first request runs, then the answer it got, kept for 24 hours.
 */

/** What a replay needs: the first answer's status, the headers that describe its body, and the body. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body's bytes, base64. */
  body: string;
}

export type IdempotencyEntry =
  /** The first request with this key is still running (on some replica). */
  { state: 'running'; fingerprint: string } | { state: 'done'; fingerprint: string; answer: StoredAnswer };

export interface IdempotencyStore {
  /**
   * Takes the key for a new request when nobody holds it (atomically: of two concurrent claims one
   * wins) and answers null; otherwise answers what is there. The claim lapses after `claimMs`
   * unless renewed, so a replica that dies mid-request holds the key only that long.
   */
  claim(key: string, fingerprint: string, claimMs: number): Promise<IdempotencyEntry | null>;
  /** Holds a claim `claimMs` longer, if it is still this request's claim (not lapsed, taken over or completed). */
  renew(key: string, fingerprint: string, claimMs: number): Promise<void>;
  /** Keeps the answer of the request that claimed `key` for `keepMs`. */
  complete(key: string, fingerprint: string, answer: StoredAnswer, keepMs: number): Promise<void>;
  /** Lets go of a claim whose answer is not kept (5xx, too large, connection lost): a retry runs again. */
  release(key: string): Promise<void>;
  /**
   * Forgets the workspace's kept answers whose body holds any of `needles` (lower-cased; compared
   * with the lower-cased body): a privacy erasure's, so no replay shows an erased person. Answers
   * how many went.
   */
  forgetAnswersHolding(workspaceId: string, needles: string[]): Promise<number>;
  close(): Promise<void>;
}

/** Whether a kept answer's body holds any of the (lower-cased) needles. */
export function answerHolds(entry: IdempotencyEntry, needles: string[]): boolean {
  if (entry.state !== 'done' || needles.length === 0) return false;
  const body = Buffer.from(entry.answer.body, 'base64').toString('utf8').toLowerCase();
  return needles.some((needle) => needle !== '' && body.includes(needle));
}

/** The store key of a workspace's entries starts with this (idempotent-posts.ts). */
export function workspaceKeyPrefix(workspaceId: string): string {
  return `${workspaceId}:`;
}
