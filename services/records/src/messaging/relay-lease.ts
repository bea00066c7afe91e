/**
 * Which records replica relays a workspace's outbox: a lease on the workspace's outbox_workspaces
 * document, taken by compare-and-set on `leaseHolder` and `leaseExpiresAt` (a conditional update,
 * which both store adapters apply atomically). One holder at a time keeps a workspace's events in
 * order and published by one replica; a holder that dies stops renewing, and its lease lapses
 * after `leaseMs`. While it publishes, the holder renews the lease every third of `leaseMs`
 * (`keepRenewed`), so a broker slow to confirm a batch does not let the lease lapse under a holder
 * that is alive and let a second replica publish the same workspace. Expiry times come from each
 * replica's clock, so replicas need clocks that agree to well under `leaseMs`.
 */
import { apiTimestamp } from '@crm/vocabulary';
import type { Condition, DocumentStore, WriteOp } from '@crm/store';
import { outboxWorkspaces } from '../store/collections';

/** The change feed's counter moved from `from` to `to` by the unit that renews the lease. */
export interface FeedAdvance {
  from: number;
  to: number;
}

export type LeaseAttempt = { held: true } | { held: false; expiresAt: number };

export class RelayLease {
  constructor(
    private readonly store: DocumentStore,
    /** This replica's name on the leases it holds; unique per process. */
    readonly holder: string,
    readonly leaseMs: number,
  ) {}

  /** Takes the workspace's lease when it is free or lapsed, or renews it when we hold it. */
  async acquire(workspaceId: string): Promise<LeaseAttempt> {
    const now = Date.now();
    const change = { set: { leaseHolder: this.holder, leaseExpiresAt: now + this.leaseMs } };
    const free: Condition = {
      or: [this.heldByUs(), [{ field: 'leaseExpiresAt', op: 'lt', value: now }], [{ field: 'leaseExpiresAt', op: 'exists', value: false }]],
    };
    const global = this.store.global();
    if (await global.update(outboxWorkspaces, workspaceId, change, { where: [free] })) return { held: true };
    const current = await global.get(outboxWorkspaces, workspaceId);
    if (current) return { held: false, expiresAt: current.leaseExpiresAt ?? 0 };
    // Registered before this relay kept leases on the document: register it and take the lease at once.
    await global.upsert(outboxWorkspaces, { id: workspaceId, registeredAt: apiTimestamp(new Date()) }, {});
    return this.acquire(workspaceId);
  }

  /**
   * The write that renews the lease (or, with `release`, gives it up) in the same unit as the
   * deletion of a published batch: when the lease was lost meanwhile, the unit fails with a
   * conflict and the batch stays pending for the new holder (who publishes it again; consumers
   * drop the repeat by message id).
   */
  renewal(workspaceId: string, release: boolean, feed?: FeedAdvance): WriteOp {
    const where = this.heldByUs();
    // The feed's positions are taken from the value read under the lease: a unit that numbered from a stale one conflicts.
    if (feed)
      where.push(
        feed.from === 0
          ? { or: [[{ field: 'feedSeq', op: 'exists', value: false }], [{ field: 'feedSeq', op: 'eq', value: 0 }]] }
          : { field: 'feedSeq', op: 'eq', value: feed.from },
      );
    return {
      kind: 'update',
      collection: outboxWorkspaces,
      id: workspaceId,
      change: { set: { leaseExpiresAt: release ? 0 : Date.now() + this.leaseMs, ...(feed ? { feedSeq: feed.to } : {}) } },
      where,
    };
  }

  /**
   * Renews the lease every third of `leaseMs` until the returned function is called. A renewal
   * never takes a lease back: it needs us to still hold it, not given up (leaseExpiresAt 0).
   */
  keepRenewed(workspaceId: string, onLost: () => void): () => void {
    let renewing: Promise<unknown> = Promise.resolve();
    const timer = setInterval(
      () => {
        renewing = renewing.then(async () => {
          const renewed = await this.store
            .global()
            .update(
              outboxWorkspaces,
              workspaceId,
              { set: { leaseExpiresAt: Date.now() + this.leaseMs } },
              { where: [...this.heldByUs(), { field: 'leaseExpiresAt', op: 'gt', value: 0 }] },
            )
            .catch(() => 'unknown' as const);
          if (renewed === null) onLost();
        });
      },
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Gives the lease up when we still hold it. */
  async release(workspaceId: string): Promise<void> {
    await this.store.global().update(outboxWorkspaces, workspaceId, { set: { leaseExpiresAt: 0 } }, { where: this.heldByUs() });
  }

  private heldByUs(): Condition[] {
    return [{ field: 'leaseHolder', op: 'eq', value: this.holder }];
  }
}
