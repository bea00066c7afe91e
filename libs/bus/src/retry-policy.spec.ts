import { DomainError } from '@crm/observability';
import { DEFAULT_RETRY_BUDGET_MS, failureOutcome, PermanentMessageError, RETRY_BACKOFF_MS, retryDelayMs } from './retry-policy';

const MINUTE = 60_000;

/** The times (ms after the first delivery) at which a message that always fails is delivered. */
function deliveryTimes(budgetMs: number, handlerMs = 0): number[] {
  const times: number[] = [];
  let now = 0;
  for (let retries = 0; ; retries += 1) {
    times.push(now);
    const wait = retryDelayMs({ firstDeliveredAt: 0, retries }, budgetMs, now);
    if (wait === null) return times;
    now += handlerMs + wait;
  }
}

describe('the retry backoff schedule', () => {
  it('waits 1 s, 5 s, 15 s, 30 s, then every minute', () => {
    expect(RETRY_BACKOFF_MS).toEqual([1000, 5000, 15_000, 30_000, 60_000]);
    expect(deliveryTimes(10 * MINUTE).slice(0, 7)).toEqual([0, 1000, 6000, 21_000, 51_000, 111_000, 171_000]);
  });

  it('makes the last attempt when the budget runs out, cutting the last wait short', () => {
    const times = deliveryTimes(10 * MINUTE);
    expect(times.at(-1)).toBe(10 * MINUTE);
    expect(times).toEqual([
      0, 1000, 6000, 21_000, 51_000, 111_000, 171_000, 231_000, 291_000, 351_000, 411_000, 471_000, 531_000, 591_000, 600_000,
    ]);
  });

  it('keeps retrying for the default budget of 10 minutes', () => {
    expect(DEFAULT_RETRY_BUDGET_MS).toBe(10 * MINUTE);
  });

  it('counts the budget from the first delivery, time spent in handlers included', () => {
    const times = deliveryTimes(40_000, 3000);
    expect(times).toEqual([0, 4000, 12_000, 30_000, 43_000]);
  });

  it('has no next delivery once the budget is spent', () => {
    expect(retryDelayMs({ firstDeliveredAt: 1000, retries: 3 }, 5000, 6000)).toBeNull();
    expect(retryDelayMs({ firstDeliveredAt: 1000, retries: 3 }, 5000, 9000)).toBeNull();
  });

  it('follows a shortened schedule when given one', () => {
    expect(retryDelayMs({ firstDeliveredAt: 0, retries: 7 }, 10_000, 0, [10, 20])).toBe(20);
  });
});

describe('the outcome of a failed delivery', () => {
  const info = { attempt: 2, redelivered: true, retryInMs: 5000 };

  it('retries a transient failure after the delay the delivery was given', () => {
    expect(failureOutcome(new DomainError('unavailable', 'records is down'), info)).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(failureOutcome(new Error('socket hang up'), info)).toEqual({ kind: 'retry', delayMs: 5000 });
  });

  it('dead-letters a transient failure on the last delivery', () => {
    expect(failureOutcome(new Error('socket hang up'), { ...info, retryInMs: null })).toEqual({
      kind: 'dead-letter',
      reason: 'budget_spent',
    });
  });

  it('dead-letters a bad message at once', () => {
    expect(failureOutcome(new PermanentMessageError('no such job'), info)).toEqual({ kind: 'dead-letter', reason: 'permanent' });
    expect(failureOutcome(DomainError.invalid('rows must be a list'), info)).toEqual({ kind: 'dead-letter', reason: 'permanent' });
  });
});
