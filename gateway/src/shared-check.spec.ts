import { sharedCheck } from './shared-check';

describe('sharedCheck', () => {
  it('runs one check for callers that ask at once, and answers from it until it is ttlMs old', async () => {
    let calls = 0;
    let clock = 0;
    let release!: (value: boolean) => void;
    const check = sharedCheck(
      () => {
        calls += 1;
        return new Promise<boolean>((resolve) => (release = resolve));
      },
      2000,
      () => clock,
    );
    const asked = Array.from({ length: 50 }, () => check());
    release(true);
    expect(await Promise.all(asked)).toEqual(Array(50).fill(true));
    expect(calls).toBe(1);
    clock = 1999;
    expect(await check()).toBe(true);
    expect(calls).toBe(1);
    clock = 2000;
    const again = check();
    release(false);
    expect(await again).toBe(false);
    expect(calls).toBe(2);
  });

  it('reads a failing check as not ready', async () => {
    const check = sharedCheck(() => Promise.reject(new Error('down')), 1000);
    expect(await check()).toBe(false);
  });
});
