/** The leases that let one worker at a time sweep (collections.ts, leases). */
import { StoreLease, type DocumentStore, type SweepLease } from '@crm/store';

export class SweepLeases {
  constructor(private readonly store: DocumentStore) {}

  /** The step sweeper's lease, held `ttlMs` at a time. */
  stepSweeper(ttlMs: number): SweepLease {
    return new StoreLease(this.store, 'step-sweeper', ttlMs);
  }
}
