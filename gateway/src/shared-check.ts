/**
 * A check many callers share: at most one runs at a time, and its answer stands for `ttlMs`. The
 * readiness probe uses it, so `/readyz` (public, answered outside the rate limits) costs auth at
 * most one health call, over one new connection, per `ttlMs` however often it is asked.
 */
export function sharedCheck(check: () => Promise<boolean>, ttlMs: number, now: () => number = Date.now): () => Promise<boolean> {
  let answer: { value: boolean; at: number } | undefined;
  let running: Promise<boolean> | undefined;
  return () => {
    if (answer && now() - answer.at < ttlMs) return Promise.resolve(answer.value);
    running ??= check()
      .catch(() => false)
      .then((value) => {
        answer = { value, at: now() };
        return value;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
}
