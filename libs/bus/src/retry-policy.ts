/**
 * What happens to a message whose handler failed: a transient failure is delivered again after a
 * growing delay (1 s, 5 s, 15 s, 30 s, then every minute) until the queue's retry budget, counted from
 * the message's first delivery, is spent; a permanent failure (a bad message) is dead-lettered at
 * once. Both adapters and the bus metrics decide with these functions, so they always agree.
 */
import { isDomainError } from '@crm/observability';
import type { DeliveryInfo } from './port';

const SECOND = 1000;

/** Waits before the 1st, 2nd, 3rd ... retry; the last one repeats. */
export const RETRY_BACKOFF_MS: readonly number[] = [SECOND, 5 * SECOND, 15 * SECOND, 30 * SECOND, 60 * SECOND];

/** A queue's retry budget when its definition names none. */
export const DEFAULT_RETRY_BUDGET_MS = 10 * 60 * SECOND;

/** Thrown by a handler for a message no retry will fix: it goes to `<queue>.dead` at once. */
export class PermanentMessageError extends Error {}

/** Caller errors from another service mean the message itself is wrong. */
const PERMANENT_KINDS = new Set(['invalid_argument', 'validation_failed', 'payload_too_large']);

export function isPermanentFailure(error: unknown): boolean {
  return error instanceof PermanentMessageError || (isDomainError(error) && PERMANENT_KINDS.has(error.kind));
}

export interface RetryClock {
  /** Unix ms of the message's first delivery; the budget counts from it. */
  firstDeliveredAt: number;
  /** Deliveries after a failure so far (0 on the first delivery). */
  retries: number;
}

/**
 * The wait before the next delivery should this one fail, or null when the budget is spent (this
 * delivery is the last). The last wait is cut short to land on the budget's end, so the final
 * attempt happens when the budget runs out rather than up to one backoff step before.
 */
export function retryDelayMs(
  clock: RetryClock,
  budgetMs: number,
  now: number,
  backoffMs: readonly number[] = RETRY_BACKOFF_MS,
): number | null {
  const left = clock.firstDeliveredAt + budgetMs - now;
  if (left <= 0) return null;
  return Math.min(backoffMs[Math.min(clock.retries, backoffMs.length - 1)]!, left);
}

export type DeadLetterReason = 'permanent' | 'budget_spent' | 'undecodable';

export type FailureOutcome = { kind: 'retry'; delayMs: number } | { kind: 'dead-letter'; reason: DeadLetterReason };

/** The one decision after a handler threw on a delivery described by `info`. */
export function failureOutcome(error: unknown, info: DeliveryInfo): FailureOutcome {
  if (isPermanentFailure(error)) return { kind: 'dead-letter', reason: 'permanent' };
  if (info.retryInMs === null) return { kind: 'dead-letter', reason: 'budget_spent' };
  return { kind: 'retry', delayMs: info.retryInMs };
}
