/**
 * A background sweep that one replica at a time runs every `intervalMs` (whichever holds the
 * lease), one pass at a time, each pass bounded by its own batch size: a failed pass is logged and
 * tried again at the next tick, and stopping waits for the pass under way, then hands the lease
 * back so another replica takes over at its next tick.
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

export abstract class LeasedSweep<Result> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  /** `name`: what the logs call it (`import retention`); `nothing`: a pass's result when nothing ran. */
  protected constructor(
    private readonly loop: LeasedSweepDeps,
    private readonly name: string,
    private readonly nothing: () => Result,
  ) {}

  /** Does what is due at `now`, stopping early once `isStopped()`. */
  protected abstract pass(now: number): Promise<Result>;

  protected isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = undefined));
    }, this.loop.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.loop.lease.release().catch(() => undefined);
  }

  /** One pass (nothing when another replica holds the lease, or the pass failed). */
  async sweep(now = Date.now()): Promise<Result> {
    if (this.stopped) return this.nothing();
    try {
      if (!(await this.loop.lease.acquire(now))) return this.nothing();
      return await this.pass(now);
    } catch (error) {
      this.loop.logger.warn({ err: error }, `${this.name} sweep failed; will retry`);
      return this.nothing();
    }
  }
}
