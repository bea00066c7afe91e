import type { Logger } from 'pino';

/*
 * How long each stage of a graceful stop may take. The stages nest, so each finishes inside the
 * one around it (tests/deploy/chart.test.ts checks the chart's side):
 *   the pod's terminationGracePeriodSeconds (30 s, charts/crm) > PROCESS_GRACE_MS (25 s)
 *   > the drains a process runs one after the other: CONSUMER_DRAIN_MS + CALL_DRAIN_MS (15 + 8 s).
 * The gateway has no consumers: its readiness delay and its HTTP drain (5 + 10 s) fit the same 25 s.
 */
/** From SIGTERM to exit: past it the process exits 1 without finishing its drain. */
export const PROCESS_GRACE_MS = 25_000;
/** Bus handlers under way may finish this long after a consumer stops; the rest go back to the queue. */
export const CONSUMER_DRAIN_MS = 15_000;
/** gRPC calls under way may finish this long after a server stops taking new ones. */
export const CALL_DRAIN_MS = 8_000;

/**
 * Runs `stop` once on SIGTERM or SIGINT (Kubernetes sends SIGTERM; Ctrl-C sends SIGINT), then
 * exits 0, or 1 if draining failed or took longer than `graceMs`. A second signal exits at once.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, graceMs = PROCESS_GRACE_MS): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs }, 'shutdown took too long, exiting');
      process.exit(1);
    }, graceMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
