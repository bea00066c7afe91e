/**
 * Delayed delivery on a broker without a delay plugin: one TTL queue per tier. A message waits in
 * the largest tier not longer than its remaining delay, dead-letters to the return queue when the
 * tier's TTL runs out, and hops on to the next tier (or to the main exchange once due).
 * Per-queue TTL, because a per-message TTL only expires messages at the head of a queue.
 */

export interface DelayTier {
  /** Queue-name suffix, e.g. `30s`. */
  label: string;
  ttlMs: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Shortest first. The sub-second tiers keep lateness small for short delays. */
export const DELAY_TIERS: readonly DelayTier[] = [
  { label: '100ms', ttlMs: 100 },
  { label: '250ms', ttlMs: 250 },
  { label: '500ms', ttlMs: 500 },
  { label: '1s', ttlMs: SECOND },
  { label: '5s', ttlMs: 5 * SECOND },
  { label: '30s', ttlMs: 30 * SECOND },
  { label: '2m', ttlMs: 2 * MINUTE },
  { label: '10m', ttlMs: 10 * MINUTE },
  { label: '1h', ttlMs: HOUR },
  { label: '6h', ttlMs: 6 * HOUR },
  { label: '24h', ttlMs: 24 * HOUR },
];

/** AMQP header holding the due time, in Unix milliseconds. */
export const DUE_AT_HEADER = 'x-crm-due-at';

/** AMQP header of a message waiting to be retried: the one queue it goes back to when due. */
export const RETRY_QUEUE_HEADER = 'x-crm-retry-queue';

/**
 * What happens next to a delayed message: parked in the largest tier not longer than the time
 * left, or, once less than the shortest tier is left, held that long by the forwarder (unacked,
 * so a crash hands it to another forwarder) and delivered. Never early, and late by little more
 * than the forwarding itself.
 */
export type DelayStep = { kind: 'deliver'; waitMs: number } | { kind: 'park'; tier: DelayTier };

export function nextDelayStep(remainingMs: number): DelayStep {
  if (remainingMs < DELAY_TIERS[0].ttlMs) return { kind: 'deliver', waitMs: Math.max(0, Math.ceil(remainingMs)) };
  let chosen = DELAY_TIERS[0];
  for (const tier of DELAY_TIERS) {
    if (tier.ttlMs <= remainingMs) chosen = tier;
  }
  return { kind: 'park', tier: chosen };
}
