/** Work a call starts and does not wait for: its failures logged, and a way to wait for all of it (tests). */
import type { Logger } from '@crm/observability';

export class BackgroundWork {
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly logger: Logger,
    private readonly failure: string,
  ) {}

  track(work: Promise<void>): void {
    const tracked = work.catch((err: unknown) => this.logger.error({ err }, this.failure)).finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }

  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
