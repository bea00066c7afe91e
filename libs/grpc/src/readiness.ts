/**
 * Readiness from the dependencies a process needs: each check runs on a timer (with a timeout, so
 * a dependency that hangs counts as down) and the process is ready while all of them pass.
 */
import type { Logger } from '@crm/observability';

export interface ReadinessCheck {
  /** What is checked, for the log: `store`, `broker`. */
  name: string;
  ready(): Promise<boolean>;
}

const CHECK_TIMEOUT_MS = 3_000;

export class ReadinessWatch {
  private timer: NodeJS.Timeout | undefined;
  private failing: string[] | undefined;
  private stopped = false;
  private checking = false;

  constructor(
    private readonly checks: ReadinessCheck[],
    private readonly onChange: (ready: boolean) => void,
    private readonly logger: Logger,
    private readonly intervalMs = 2_000,
  ) {}

  /** Checks once, then keeps checking until stopped. */
  async start(): Promise<void> {
    await this.checkNow();
    if (this.stopped) return;
    this.timer = setInterval(() => void this.checkNow(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  private async checkNow(): Promise<void> {
    // A check slower than the interval: the next round waits for it rather than racing it.
    if (this.checking) return;
    this.checking = true;
    const results = await Promise.all(this.checks.map(async (check) => ((await passes(check)) ? undefined : check.name)));
    this.checking = false;
    if (this.stopped) return;
    const failing = results.filter((name): name is string => name !== undefined);
    const changed = this.failing === undefined || failing.join() !== this.failing.join();
    this.failing = failing;
    if (!changed) return;
    this.onChange(failing.length === 0);
    if (failing.length > 0) this.logger.warn({ failing }, 'not ready: a dependency is unavailable');
    else this.logger.info({ checks: this.checks.map((check) => check.name) }, 'ready');
  }
}

async function passes(check: ReadinessCheck): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.ready().catch(() => false), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The process's store answers (`DocumentStore.ping`). */
export function storeReadiness(store: { ping(): Promise<boolean> }): ReadinessCheck {
  return { name: 'store', ready: () => store.ping() };
}

/** The process is connected to its broker (`MessageBus.ping`). */
export function brokerReadiness(bus: { ping(): Promise<boolean> }): ReadinessCheck {
  return { name: 'broker', ready: () => bus.ping() };
}
