/**
 * Polls `check` until it answers a truthy value, which it returns; after `timeoutMs` it fails naming
 * what it waited for. Cross-service effects (events, imports, caches) settle asynchronously.
 */
export async function eventually<T>(
  description: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 60_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
