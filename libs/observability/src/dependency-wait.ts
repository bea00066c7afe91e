/**
 * Start-up that waits for what a process needs (its MongoDB, its RabbitMQ, its Redis) instead of
 * exiting: in a cluster coming up, or a dev loop where the store starts after the services, a
 * process that exits is restarted by its orchestrator with its own backoff (and skaffold treats a
 * restarting container as fatal). The process keeps its ports open and says "not ready" meanwhile.
 */
import type { Logger } from './logger';

export interface Dependency {
  /** What it is, for people: `MongoDB`, `RabbitMQ`, `Redis`. */
  name: string;
  /** Where, without credentials: `mongo-0.mongo:27017`. */
  where: string;
}

export interface DependencyWaitOptions {
  /** The wait after the first failed attempt (default 1 s); it doubles after every failure. */
  firstDelayMs?: number;
  /** The longest wait between attempts (default 30 s). */
  maxDelayMs?: number;
  /** Whether a failure can pass by itself (unreachable) rather than being a mistake (a bad password, a bad URL); default every failure. */
  retryable?: (error: unknown) => boolean;
  /** Aborted: stop waiting (the process was told to stop); the last failure is thrown. */
  signal?: AbortSignal;
}

export const DEPENDENCY_FIRST_DELAY_MS = 1_000;
export const DEPENDENCY_MAX_DELAY_MS = 30_000;

/** The wait before attempt `attempt + 1`, after `attempt` failures: doubling from `firstDelayMs`, capped at `maxDelayMs`. */
export function dependencyDelayMs(attempt: number, firstDelayMs = DEPENDENCY_FIRST_DELAY_MS, maxDelayMs = DEPENDENCY_MAX_DELAY_MS): number {
  return Math.min(maxDelayMs, firstDelayMs * 2 ** Math.min(attempt - 1, 30));
}

/** Where a URL points, without its credentials, path or query: `host:port` (`host1,host2` for a seed list). */
export function urlHost(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^/?#]*)/i.exec(url);
  return match?.[1] || '(unparsed URL)';
}

/**
 * Runs `open` until it succeeds, logging every failed attempt ("waiting for MongoDB at host:
 * attempt 3 failed, next in 4 s") and waiting longer after each, up to `maxDelayMs`. A failure
 * `retryable` rejects is thrown at once.
 */
export async function openWhenReachable<T>(
  dependency: Dependency,
  open: () => Promise<T>,
  logger: Logger,
  options: DependencyWaitOptions = {},
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const opened = await open();
      if (attempt > 1)
        logger.info({ dependency: dependency.name, at: dependency.where, attempt }, `reached ${dependency.name} at ${dependency.where}`);
      return opened;
    } catch (error) {
      if ((options.retryable && !options.retryable(error)) || options.signal?.aborted) throw error;
      const delayMs = dependencyDelayMs(attempt, options.firstDelayMs, options.maxDelayMs);
      logger.warn(
        {
          dependency: dependency.name,
          at: dependency.where,
          attempt,
          nextInMs: delayMs,
          reason: error instanceof Error ? error.message : String(error),
        },
        `waiting for ${dependency.name} at ${dependency.where}: attempt ${attempt} failed, next in ${formatSeconds(delayMs)}`,
      );
      await sleep(delayMs, options.signal);
      if (options.signal?.aborted) throw error;
    }
  }
}

function formatSeconds(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
