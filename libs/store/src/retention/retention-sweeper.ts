/**
 * Deletes what a service keeps only for a while (used refresh tokens, sent emails, finished runs,
 * processed batch answers): every `intervalMs`, the replica holding the store's `retention` lease
 * deletes at most `batchSize` documents per rule, so a pass is bounded however much is due and a
 * backlog drains over a few passes. Each rule says which documents are past their retention at a
 * given moment; the audit log (activities) has no rule and stays.
 */
import type { Logger } from '@crm/observability';
import type { CollectionDefinition, Condition, DocumentStore } from '../port';
import { LeasedSweep } from './leased-sweep';
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

export class RetentionSweeper extends LeasedSweep<Record<string, number>> {
  constructor(
    private readonly store: DocumentStore,
    private readonly rules: RetentionRule[],
    private readonly logger: Logger,
    private readonly options: RetentionSweeperOptions,
  ) {
    super(
      { lease: new StoreLease(store, 'retention', options.intervalMs * 3), logger, intervalMs: options.intervalMs },
      'retention',
      () => ({}),
    );
  }

  /** How many documents each collection lost. */
  protected async pass(now: number): Promise<Record<string, number>> {
    const deleted: Record<string, number> = {};
    for (const rule of this.rules) {
      if (this.isStopped()) break;
      const count = await this.store.purge(rule.collection, rule.expired(now), this.options.batchSize);
      deleted[rule.collection.name] = (deleted[rule.collection.name] ?? 0) + count;
    }
    if (Object.values(deleted).some((n) => n > 0)) this.logger.info({ deleted }, 'retention: deleted documents past their retention');
    return deleted;
  }
}
