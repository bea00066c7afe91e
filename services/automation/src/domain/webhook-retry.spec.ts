import { DEFAULT_WEBHOOK_RETRY, nextRetryDelayMs } from './webhook-retry';

const HOUR = 60 * 60_000;

/** Every attempt's time from the first, as the schedule would space them when each one fails. */
function attemptTimes(schedule = DEFAULT_WEBHOOK_RETRY): number[] {
  const times = [0];
  for (;;) {
    const attempt = times.length;
    const delay = nextRetryDelayMs(schedule, attempt, 0, times[attempt - 1]!);
    if (delay === null) return times;
    times.push(times[attempt - 1]! + delay);
  }
}

describe('nextRetryDelayMs', () => {
  it('retries first within 15 s', () => {
    expect(nextRetryDelayMs(DEFAULT_WEBHOOK_RETRY, 1, 0, 0)).toBeLessThanOrEqual(15_000);
  });

  it('doubles the wait after each failure', () => {
    const first = nextRetryDelayMs(DEFAULT_WEBHOOK_RETRY, 1, 0, 0)!;
    expect(nextRetryDelayMs(DEFAULT_WEBHOOK_RETRY, 2, 0, first)).toBe(first * 2);
    expect(nextRetryDelayMs(DEFAULT_WEBHOOK_RETRY, 3, 0, first * 3)).toBe(first * 4);
  });

  it('never waits longer than the cap', () => {
    expect(nextRetryDelayMs(DEFAULT_WEBHOOK_RETRY, 30, 0, 0)).toBe(DEFAULT_WEBHOOK_RETRY.maxDelayMs);
  });

  it('keeps retrying for at least 24 hours, then stops', () => {
    const times = attemptTimes();
    expect(times.at(-1)).toBeGreaterThanOrEqual(24 * HOUR);
    expect(times.at(-2)).toBeLessThan(24 * HOUR);
  });

  it('follows a shortened horizon (tests and operators set it by env)', () => {
    const times = attemptTimes({ firstDelayMs: 100, maxDelayMs: 400, horizonMs: 1_000 });
    expect(times).toEqual([0, 100, 300, 700, 1100]);
  });
});
