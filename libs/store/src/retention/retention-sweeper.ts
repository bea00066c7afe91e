/**
 * Deletes what a service keeps only for a while (used refresh tokens, sent emails, finished runs,
 * processed batch answers): every `intervalMs`, the replica holding the store's `retention` lease
 * deletes at most `batchSize` documents per rule, so a pass is bounded however much is due and a
 * backlog drains over a few passes. Each rule says which documents are past their retention at a
 * given moment; the audit log (activities) has no rule and stays.
 */
import type { Logger } from '@crm/observability';
import type { CollectionDefinition, Condition, DocumentStore } from '../port';
import { StoreLease } from './store-lease';

export interface RetentionRule {
  collection: CollectionDefinition<any>;
  /** The documents past their retention at `now` (Unix ms). */
  expired(now: number): Condition[];
}

export interface RetentionSweeperOptions {
  intervalMs: number;
  /** Documents deleted per rule per pass, at most. */
  batchSize: number;
}

export const DAY_MS = 86_400_000;

/** `days` before `now`, as the ISO timestamps documents keep. */
export function isoDaysBefore(now: number, days: number): string {
  return new Date(now - days * DAY_MS).toISOString();
}

export class RetentionSweeper {
  private readonly lease: StoreLease;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly store: DocumentStore,
    private readonly rules: RetentionRule[],
    private readonly logger: Logger,
    private readonly options: RetentionSweeperOptions,
  ) {
    this.lease = new StoreLease(store, 'retention', options.intervalMs * 3);
  }

  start(): void {
    this.timer = setInterval(() => {
      if (!this.running) this.running = this.sweep().finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.lease.release().catch(() => undefined);
  }

  /** One pass; how many documents each collection lost (empty when another replica holds the lease). */
  async sweep(now = Date.now()): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    if (this.stopped) return deleted;
    try {
      if (!(await this.lease.acquire(now))) return deleted;
      for (const rule of this.rules) {
        if (this.stopped) break;
        const count = await this.store.purge(rule.collection, rule.expired(now), this.options.batchSize);
        deleted[rule.collection.name] = (deleted[rule.collection.name] ?? 0) + count;
      }
      if (Object.values(deleted).some((n) => n > 0)) this.logger.info({ deleted }, 'retention: deleted documents past their retention');
    } catch (error) {
      this.logger.warn({ err: error }, 'retention sweep failed; will retry');
    }
    return deleted;
  }
}
