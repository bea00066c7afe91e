/**
 * When steps fall due. A `wait` step is due when its pause ends; any other step is due as soon as
 * the one before it finished. CRM_WAIT_TIME_SCALE scales every wait (0.001 turns a day into 86.4 s).
 */
import type { Step, WaitUnit } from './model';

const UNIT_MS: Record<WaitUnit, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

export function waitMs(duration: number, unit: WaitUnit, scale: number): number {
  return Math.max(0, Math.round(duration * UNIT_MS[unit] * scale));
}

/** Unix ms at which `step` is due when it is reached at `now`. */
export function dueAtOnReaching(step: Step, now: number, scale: number): number {
  return step.type === 'wait' ? now + waitMs(step.config.duration, step.config.unit, scale) : now;
}

/** Delay before retrying a step after a transient failure: 1 s, 2 s, 4 s, ... up to a minute. */
export function retryDelayMs(attempt: number): number {
  return Math.min(60_000, 1000 * 2 ** Math.max(0, attempt - 1));
}
