/**
 * A named, time-limited lease in the store, so that one replica at a time does a periodic job (a
 * sweep). Taken by insert when new, else by compare-and-set on (holder is us, or the lease lapsed);
 * a holder that stops renewing loses it after `leaseMs`. Expiry times come from each replica's
 * clock, so replicas need clocks that agree to well under `leaseMs`.
 */
import { randomUUID } from 'node:crypto';
import { defineCollection, StoreError, type DocumentStore, type StoredDocument } from '../port';

export interface LeaseDocument extends StoredDocument {
  holder: string;
  until: number;
}

/** Every service that keeps a lease lists this collection among its own. */
export const leases = defineCollection<LeaseDocument>({ name: 'leases', scope: 'global', fields: { until: 'number' } });

export class StoreLease {
  /** This process's name on the leases it holds. */
  readonly holder = randomUUID();

  constructor(
    private readonly store: DocumentStore,
    readonly name: string,
    readonly leaseMs: number,
  ) {}

  /** Takes the lease when it is free or lapsed, or renews it when we hold it; true when we hold it now. */
  async acquire(now = Date.now()): Promise<boolean> {
    const until = now + this.leaseMs;
    const global = this.store.global();
    try {
      await global.insert(leases, { id: this.name, holder: this.holder, until });
      return true;
    } catch (error) {
      if (!(error instanceof StoreError && error.code === 'duplicate')) throw error;
    }
    const taken = await global.update(
      leases,
      this.name,
      { set: { holder: this.holder, until } },
      { where: [{ or: [[{ field: 'holder', op: 'eq', value: this.holder }], [{ field: 'until', op: 'lt', value: now }]] }] },
    );
    return taken !== null;
  }

  /** Hands the lease back, so another replica takes over at its next try. */
  async release(): Promise<void> {
    await this.store
      .global()
      .update(leases, this.name, { set: { until: 0 } }, { where: [{ field: 'holder', op: 'eq', value: this.holder }] });
  }
}
