import { RecognitionTurns } from './recognition-turns';

/** A piece of work that finishes when told to. */
function held() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { work: () => done, finish };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('turns for text recognition', () => {
  it('runs one at a time, the next in line as soon as the one before ends', async () => {
    const turns = new RecognitionTurns(1, 5);
    const order: string[] = [];
    const first = held();
    const a = turns.run(async () => {
      order.push('a');
      await first.work();
    });
    const b = turns.run(async () => {
      order.push('b');
    });
    await tick();
    expect(order).toEqual(['a']);
    first.finish();
    await Promise.all([a, b]);
    expect(order).toEqual(['a', 'b']);
  });

  it('answers busy (unavailable) past the waiting line instead of piling work up', async () => {
    const turns = new RecognitionTurns(1, 1);
    const first = held();
    const running = turns.run(first.work);
    const waiting = turns.run(async () => 'ran');
    await expect(turns.run(async () => 'never')).rejects.toMatchObject({ kind: 'unavailable' });
    first.finish();
    await running;
    await expect(waiting).resolves.toBe('ran');
  });

  it('lets a waiter whose caller has gone leave the line without running', async () => {
    const turns = new RecognitionTurns(1, 5);
    const first = held();
    const running = turns.run(first.work);
    const caller = new AbortController();
    let ran = false;
    const waiting = turns.run(async () => {
      ran = true;
    }, caller.signal);
    caller.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'unavailable' });
    first.finish();
    await running;
    await expect(turns.run(async () => 'next')).resolves.toBe('next');
    expect(ran).toBe(false);
  });
});
