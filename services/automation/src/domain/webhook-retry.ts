/**
 * When a failed webhook delivery is tried again: exponential backoff from `firstDelayMs` (10 s by
 * default, so the first retry comes within 15 s), each wait capped at `maxDelayMs`, until
 * `horizonMs` has passed since the first attempt (24 h by default). The attempt made at or past the
 * horizon is the last; when it fails too, the subscription is marked failing.
 */
export interface WebhookRetrySchedule {
  firstDelayMs: number;
  maxDelayMs: number;
  horizonMs: number;
}

export const DEFAULT_WEBHOOK_RETRY: WebhookRetrySchedule = {
  firstDelayMs: 10_000,
  maxDelayMs: 60 * 60_000,
  horizonMs: 24 * 60 * 60_000,
};

/** The wait before attempt `attempt + 1` after attempt `attempt` (from 1) failed, or null: no more. */
export function nextRetryDelayMs(schedule: WebhookRetrySchedule, attempt: number, firstAttemptAt: number, now: number): number | null {
  if (now - firstAttemptAt >= schedule.horizonMs) return null;
  const exponential = schedule.firstDelayMs * 2 ** Math.min(attempt - 1, 40);
  return Math.min(exponential, schedule.maxDelayMs);
}
