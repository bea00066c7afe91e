import { BulkLane, READS_SETTLE_MAX_MS, TURNS_BETWEEN_BULK_CALLS } from './bulk-lane';

/** Work that needs `turns` turns of the event loop, as a gRPC call does between its read and its answer. */
function turnsOfWork(turns: number, log: string[], name: string): Promise<void> {
  return new Promise((resolve) => {
    const step = (left: number) =>
      setImmediate(() => {
        if (left > 1) return step(left - 1);
        log.push(name);
        resolve();
      });
    step(turns);
  });
}

describe('BulkLane', () => {
  it('starts a bulk call once the reads running off the event loop have come back, or after a short wait at most', async () => {
    const log: string[] = [];
    let readBack: () => void = () => undefined;
    const read = new Promise<void>((resolve) => (readBack = resolve)).then(() => log.push('read answered'));
    const waits: number[] = [];
    const lane = new BulkLane(1, async (maxWaitMs) => {
      waits.push(maxWaitMs);
      await read;
    });
    const bulk = lane.run(async () => log.push('bulk'));
    // Many turns pass while the read runs on its worker: the bulk call still waits for it.
    await turnsOfWork(TURNS_BETWEEN_BULK_CALLS * 3, log, 'turns passed');
    readBack();
    await Promise.all([bulk, read]);
    expect(log).toEqual(['turns passed', 'read answered', 'bulk']);
    expect(waits).toEqual([READS_SETTLE_MAX_MS]);
  });

  it('runs one bulk call at a time, in the order they came', async () => {
    const lane = new BulkLane();
    const log: string[] = [];
    let inside = 0;
    const bulk = (name: string) =>
      lane.run(async () => {
        inside += 1;
        expect(inside).toBe(1);
        log.push(`${name} start`);
        await new Promise((r) => setImmediate(r));
        log.push(`${name} end`);
        inside -= 1;
        return name;
      });
    await expect(Promise.all([bulk('a'), bulk('b'), bulk('c')])).resolves.toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });

  it('lets a call that needs several turns, arriving during a bulk call, finish before the next bulk call starts', async () => {
    const lane = new BulkLane();
    const log: string[] = [];
    const first = lane.run(async () => {
      log.push('bulk 1');
    });
    const second = lane.run(async () => {
      log.push('bulk 2');
    });
    // Arrives while bulk 1 waits for its turn: the lane hands on only after TURNS_BETWEEN_BULK_CALLS turns.
    const interactive = turnsOfWork(TURNS_BETWEEN_BULK_CALLS - 1, log, 'interactive');
    await Promise.all([first, second, interactive]);
    expect(log).toEqual(['interactive', 'bulk 1', 'bulk 2']);

    const log2: string[] = [];
    const third = lane.run(async () => {
      log2.push('bulk 3');
      // An interactive call arrives during bulk 3; bulk 4 is already waiting.
      void turnsOfWork(TURNS_BETWEEN_BULK_CALLS - 1, log2, 'interactive');
    });
    const fourth = lane.run(async () => {
      log2.push('bulk 4');
    });
    await Promise.all([third, fourth]);
    expect(log2).toEqual(['bulk 3', 'interactive', 'bulk 4']);
  });

  it('runs up to its width at once', async () => {
    const lane = new BulkLane(2);
    let inside = 0;
    let most = 0;
    const bulk = () =>
      lane.run(async () => {
        inside += 1;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 5));
        inside -= 1;
      });
    await Promise.all([bulk(), bulk(), bulk(), bulk(), bulk()]);
    expect(most).toBe(2);
    expect(lane.queued).toBe(0);
  });

  it("lets the next bulk call make its checks during a call's commit, and commits one at a time, in order", async () => {
    const lane = new BulkLane();
    const log: string[] = [];
    const held = new Map<string, () => void>();
    const commitHeld = (name: string) => () =>
      new Promise<string>((resolve) => {
        log.push(`${name} commit`);
        held.set(name, () => {
          log.push(`${name} committed`);
          resolve(name);
        });
      });
    const bulk = (name: string) =>
      lane.run(async (call) => {
        log.push(`${name} checks`);
        return call.commit(commitHeld(name));
      });
    const calls = [bulk('a'), bulk('b'), bulk('c')];
    const until = async (entry: string) => {
      while (!log.includes(entry)) await new Promise((r) => setImmediate(r));
    };
    await until('b checks');
    // b waits for a's commit; c waits for a place: a committing and b are two, twice the width.
    await turnsOfWork(TURNS_BETWEEN_BULK_CALLS * 4, [], 'settle');
    expect(log).toEqual(['a checks', 'a commit', 'b checks']);
    expect(lane.queued).toBe(1);
    held.get('a')!();
    await until('c checks');
    await until('b commit');
    held.get('b')!();
    await until('c commit');
    held.get('c')!();
    await expect(Promise.all(calls)).resolves.toEqual(['a', 'b', 'c']);
    expect(log).toEqual([
      'a checks',
      'a commit',
      'b checks',
      'a committed',
      'b commit',
      'c checks',
      'b committed',
      'c commit',
      'c committed',
    ]);
    expect(lane.queued).toBe(0);
  });

  it('frees every place when a commit fails', async () => {
    const lane = new BulkLane();
    const failing = lane.run((call) => call.commit(() => Promise.reject(new Error('boom'))));
    await expect(failing).rejects.toThrow('boom');
    const after = await Promise.all([1, 2, 3].map((n) => lane.run((call) => call.commit(async () => n))));
    expect(after).toEqual([1, 2, 3]);
    expect(lane.queued).toBe(0);
  });

  it('frees the lane when a bulk call fails', async () => {
    const lane = new BulkLane();
    await expect(lane.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lane.run(async () => 'next')).resolves.toBe('next');
    expect(lane.queued).toBe(0);
  });
});
