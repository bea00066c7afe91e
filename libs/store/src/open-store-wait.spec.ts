import type { Logger } from '@crm/observability';
import { openStoreWhenReachable } from './open-store';

describe('opening a MongoDB store that does not answer yet', () => {
  it('keeps retrying, logging every attempt, instead of failing', async () => {
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const controller = new AbortController();
    const logger = {
      warn: (fields: Record<string, unknown>, message: string) => {
        warnings.push({ fields, message });
        if (warnings.length === 3) controller.abort();
      },
      info: () => undefined,
    } as unknown as Logger;
    const opening = openStoreWhenReachable(
      // Port 9 (discard) on loopback: nothing listens, every attempt is refused.
      {
        location: { kind: 'mongo', url: 'mongodb://crm:secret@127.0.0.1:9/?directConnection=true', database: 'crm_test' },
        collections: [],
      },
      logger,
      { attemptTimeoutMs: 200, firstDelayMs: 10, maxDelayMs: 20, signal: controller.signal },
    );
    await expect(opening).rejects.toMatchObject({ code: 'unavailable' });
    expect(warnings.map((warning) => warning.message)).toEqual([
      'waiting for MongoDB at 127.0.0.1:9: attempt 1 failed, next in 10 ms',
      'waiting for MongoDB at 127.0.0.1:9: attempt 2 failed, next in 20 ms',
      'waiting for MongoDB at 127.0.0.1:9: attempt 3 failed, next in 20 ms',
    ]);
    expect(warnings[0]!.fields).toMatchObject({ dependency: 'MongoDB', attempt: 1, nextInMs: 10 });
  });

  it('fails at once on a URL that no waiting can mend', async () => {
    const logger = { warn: jest.fn(), info: jest.fn() } as unknown as Logger;
    await expect(
      openStoreWhenReachable(
        { location: { kind: 'mongo', url: 'mongodb://127.0.0.1:notaport', database: 'crm_test' }, collections: [] },
        logger,
      ),
    ).rejects.toThrow();
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
