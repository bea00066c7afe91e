import type { Logger } from 'pino';

/**
 * Runs `stop` once on SIGTERM or SIGINT (Kubernetes sends SIGTERM; Ctrl-C sends SIGINT), then
 * exits 0, or 1 if draining failed or took longer than `graceMs`. A second signal exits at once.
 */
export function stopOnSignals(logger: Logger, stop: () => Promise<void>, graceMs = 25_000): void {
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
