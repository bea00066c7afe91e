/**
 * A background sweep that one replica at a time runs every `intervalMs` (whichever holds the
 * lease), one pass at a time, each pass bounded by its own batch size; a failed pass is logged and
 * retried at the next tick, and stopping waits for the pass under way.
 */
import type { Logger } from '@crm/observability';

/** One replica at a time (a StoreLease). */
export interface SweepLease {
  acquire(now: number): Promise<boolean>;
  release(): Promise<void>;
}

export interface LeasedSweepDeps {
  lease: SweepLease;
  logger: Logger;
  intervalMs: number;
}

export abstract class LeasedSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  /** `name`: what the logs call it (`import retention`); `erased`: what a pass removes (`ended jobs`). */
  protected constructor(
    private readonly sweepDeps: LeasedSweepDeps,
    private readonly name: string,
    private readonly erased: string,
  ) {}

  /** Removes what is due, stopping early once `isStopped()`; returns how many went. */
  protected abstract pass(now: number): Promise<number>;

  protected isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = undefined));
    }, this.sweepDeps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.sweepDeps.lease.release().catch(() => undefined);
  }

  /** One pass; how many went (0 too when another replica holds the lease). */
  async sweep(now = Date.now()): Promise<number> {
    const { lease, logger } = this.sweepDeps;
    if (this.stopped) return 0;
    try {
      if (!(await lease.acquire(now))) return 0;
      const erased = await this.pass(now);
      if (erased > 0) logger.info({ erased }, `${this.name}: deleted ${this.erased} past their retention`);
      return erased;
    } catch (error) {
      logger.warn({ err: error }, `${this.name} sweep failed; will retry`);
      return 0;
    }
  }
}
