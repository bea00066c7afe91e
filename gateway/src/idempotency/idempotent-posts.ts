/**
 * `Idempotency-Key` on authenticated POSTs (contract-decisions.md, "Idempotency, concurrency,
 * cursors"). Runs after authentication, so keys are per workspace. The first request with a key
 * claims it and runs; its answer (status < 500, body up to 1 MB) is kept for 24 hours and replayed
 * with `Idempotent-Replayed: true` to a retry with the same method, path and body. The same key
 * with another request → 422; while the first still runs → 409. A 5xx or an answer over 1 MB
 * releases the key, so a retry runs again. A client that hangs up does not stop its request: the
 * answer it would have had is kept when the request ends, for its retry.
 *
 * A claim is a lease of CLAIM_MS that its gateway renews while the request runs: a request may run
 * for minutes (an upload), yet the key of one whose gateway died (SIGKILL, a lost node) lapses
 * within CLAIM_MS, so its retries get 409 for seconds, not for as long as any request could run.
 * A gateway told to stop settles its open claims before it exits (`settleOpen`).
 *
 * An answer carrying a one-time secret (a new API key, a webhook's signing secret, an invitation
 * token) is never kept: its route is marked with `oneTimeSecret`, and in its place the key keeps a
 * 409 saying that the request ran and its secret cannot be shown again. Redis then holds no
 * credential, and a retry still runs nothing twice.
 *
 * Uploads (import start, the synchronous import) are claimed before their body is read and keyed
 * without it: their fingerprint is the method, path and query only, so a retry with the same key
 * gets the first answer whatever file it carries.
 */
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '@crm/observability';
import { discardBodyAfterAnswer } from '../middleware/discard-body';
import { AnswerRecorder } from './answer-recorder';
import { workspaceKeyPrefix, type IdempotencyEntry, type IdempotencyStore, type StoredAnswer } from './idempotency-store';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const MAX_KEY_LENGTH = 255;
export const KEEP_ANSWER_MS = 24 * 60 * 60 * 1000;
/** A claim's lease, renewed every third of it while its request runs. */
export const CLAIM_MS = 30_000;
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** How long after its client hung up a request that has not answered keeps its key. */
const ABANDONED_CLAIM_MS = 30_000;
const DISCARD_BYTES = 11 * 1024 * 1024;

export interface IdempotentPosts {
  /** Mounted before the upload proxy: streamed uploads only. */
  streamedUploads: RequestHandler;
  /** Mounted after the JSON body parser: every other POST. */
  jsonPosts: RequestHandler;
  /**
   * Waits up to `timeoutMs` for every claimed request to settle its key (kept answer or release),
   * also those whose client hung up; answers how many are still open. Called at stop, once the
   * listener has closed, so no claim is left to lapse that its request was about to settle.
   */
  settleOpen(timeoutMs: number): Promise<number>;
}

export interface IdempotentPostsOptions {
  claimMs?: number;
  abandonedClaimMs?: number;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function pathOf(req: Request): string {
  const [path = '', query] = (req.baseUrl + req.url).split('?', 2);
  return `${path.replace(/\/+$/, '')}${query ? `?${query}` : ''}`;
}

/**
 * Marks a route whose successful answer carries a one-time secret (mounted in its definition,
 * before its handler): the guard keeps a 409 for its key instead of the answer.
 */
export const oneTimeSecret: RequestHandler = (_req, res, next) => {
  res.locals.oneTimeSecret = true;
  next();
};

/**
 * Marks a route whose successful answer holds a person's data (the privacy export and erasure): a
 * copy kept for replays would outlive an erasure, so the key keeps a 409 instead, as for a secret.
 */
export const personalDataAnswer: RequestHandler = (_req, res, next) => {
  res.locals.personalData = true;
  next();
};

export const WITHHELD_PERSONAL_DETAIL = `The request with this ${IDEMPOTENCY_HEADER} already succeeded, but its answer held personal data, which is not kept; make the request again with a new key.`;

export const WITHHELD_SECRET_DETAIL = `The request with this ${IDEMPOTENCY_HEADER} already succeeded, but its answer carried a one-time secret, which is not kept and cannot be shown again. Look the created resource up (its secret stays hidden); for a new secret, make a new request with a new key.`;

/** What a key keeps in place of a successful answer that carried a one-time secret or personal data. */
const withheldAnswer = (detail: string): StoredAnswer => ({
  status: 409,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: Buffer.from(JSON.stringify({ detail })).toString('base64'),
});

function withheldDetail(res: Response): string | undefined {
  if (res.statusCode >= 300) return undefined;
  if (res.locals.oneTimeSecret === true) return WITHHELD_SECRET_DETAIL;
  return res.locals.personalData === true ? WITHHELD_PERSONAL_DETAIL : undefined;
}

function send(res: Response, status: number, detail: string): void {
  res.status(status).json({ detail });
}

/** Answers from what the key already holds (another request's, one still running, a kept answer); false when the request is to run. */
function answeredFromEntry(res: Response, existing: IdempotencyEntry | null, fingerprint: string): boolean {
  if (existing?.fingerprint !== undefined && existing.fingerprint !== fingerprint) {
    send(
      res,
      422,
      `This ${IDEMPOTENCY_HEADER} was already used for a different request (method, path or body); use a new key for a new request.`,
    );
    return true;
  }
  if (existing?.state === 'running') {
    send(res, 409, `A request with this ${IDEMPOTENCY_HEADER} is still in progress; retry after it has answered.`);
    return true;
  }
  if (existing?.state === 'done') {
    const { status, headers, body } = existing.answer;
    res.status(status).set(headers).set(REPLAYED_HEADER, 'true');
    res.end(Buffer.from(body, 'base64'));
    return true;
  }
  return false;
}

interface Claim {
  store: IdempotencyStore;
  logger: Logger;
  /** Each claimed request's settling, until it is written. */
  open: Set<Promise<void>>;
  key: string;
  fingerprint: string;
  claimMs: number;
  abandonedClaimMs: number;
}

/**
 * Holds the claim while the request runs (renewed every third of its life) and settles it once,
 * with the answer kept (or withheld) or the claim released.
 */
function holdClaim(res: Response, { store, logger, open, key, fingerprint, claimMs, abandonedClaimMs }: Claim): void {
  let settled = false;
  let markSettled!: () => void;
  const settling = new Promise<void>((resolve) => (markSettled = resolve));
  open.add(settling);
  const renewal = setInterval(
    () =>
      void store.renew(key, fingerprint, claimMs).catch((err: unknown) => logger.warn({ err, key }, 'idempotency claim renewal failed')),
    claimMs / 3,
  ).unref();
  const settle = (answer: StoredAnswer | undefined): Promise<void> => {
    if (settled) return Promise.resolve();
    settled = true;
    clearInterval(renewal);
    const withheld = withheldDetail(res);
    const kept = res.statusCode >= 500 || !answer ? undefined : withheld ? withheldAnswer(withheld) : answer;
    const write = kept ? store.complete(key, fingerprint, kept, KEEP_ANSWER_MS) : store.release(key);
    return write
      .catch((err: unknown) => logger.warn({ err, key }, 'idempotency store write failed'))
      .finally(() => {
        open.delete(settling);
        markSettled();
      });
  };
  new AnswerRecorder(res, MAX_ANSWER_BYTES, (answer) => {
    if (!answer) logger.warn({ key }, 'answer over 1 MB not kept; a retry with its key runs again');
    return settle(answer);
  });
  // Closed before any answer: the request normally still ends (and settles) on its own; this is
  // the net for one that never does, so its key is not held for the whole claim.
  res.once('close', () => {
    if (!settled) setTimeout(() => void settle(undefined), abandonedClaimMs).unref();
  });
}

export function idempotentPosts(
  store: IdempotencyStore,
  logger: Logger,
  isStreamedUpload: (req: Request) => boolean,
  { claimMs = CLAIM_MS, abandonedClaimMs = ABANDONED_CLAIM_MS }: IdempotentPostsOptions = {},
): IdempotentPosts {
  /** Each claimed request's settling, until it is written. */
  const open = new Set<Promise<void>>();
  const guard =
    (streamed: boolean): RequestHandler =>
    async (req, res, next) => {
      const key = req.get(IDEMPOTENCY_HEADER);
      const workspaceId: string | undefined = res.locals.caller?.workspaceId;
      if (req.method !== 'POST' || key === undefined || !workspaceId || isStreamedUpload(req) !== streamed) return next();
      if (streamed) discardBodyAfterAnswer(req, res, DISCARD_BYTES); // only acts when answered here, unread
      if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
        return send(res, 400, `${IDEMPOTENCY_HEADER} must be 1 to ${MAX_KEY_LENGTH} characters long.`);
      }
      const entryKey = `${workspaceKeyPrefix(workspaceId)}${sha256(key)}`;
      const fingerprint = sha256(`${req.method}\n${pathOf(req)}\n${streamed ? '' : JSON.stringify(req.body ?? {})}`);

      let existing;
      try {
        existing = await store.claim(entryKey, fingerprint, claimMs);
      } catch (err) {
        logger.warn({ err }, 'idempotency store unreachable; refusing a keyed request rather than risk running it twice');
        return send(res, 503, 'The service is temporarily unavailable; try again shortly.');
      }
      if (answeredFromEntry(res, existing, fingerprint)) return;
      holdClaim(res, { store, logger, open, key: entryKey, fingerprint, claimMs, abandonedClaimMs });
      next();
    };
  const settleOpen = async (timeoutMs: number): Promise<number> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all(open), timeout]);
    clearTimeout(timer);
    return open.size;
  };
  return { streamedUploads: guard(true), jsonPosts: guard(false), settleOpen };
}
