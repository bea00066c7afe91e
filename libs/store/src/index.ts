export * from './port';
export { openStore, openStoreWhenReachable, locationFromEnv } from './open-store';
export type { LocationSettings, StoreWaitOptions } from './open-store';
// For a test double or another backend; the adapters themselves stay internal so that every
// caller goes through the scoped store and its tenancy rule.
export { createDocumentStore } from './scoped-store';
export type { StoreAdapter, AdapterWrite, StoredRecord } from './store-adapter';
export { leases, StoreLease, type LeaseDocument } from './retention/store-lease';
export { purgeQuery } from './scoped-store';
export { sqliteQueryPlan } from './sqlite/query-plan';
export { readsOnLoop as sqliteReadsOnLoop } from './sqlite/loop-reads';
export { LeasedSweep, type LeasedSweepDeps, type SweepLease } from './retention/leased-sweep';
export { RetentionSweeper, isoDaysBefore, DAY_MS, type RetentionRule, type RetentionSweeperOptions } from './retention/retention-sweeper';
export { keepAlive } from './sqlite/keep-alive';
export {
  after as afterCursor,
  afterKeys,
  decodeKeysCursor,
  encodeKeysCursor,
  type KeysPosition,
  CursorError,
  decodeCursor,
  encodeCursor,
  cursorPosition,
  listPage,
  listScope,
  listCursor,
  listPosition,
  findAfter,
  sortKeys,
  type CursorPosition,
  type ListPage,
  type ListQuery,
} from './list-cursor';
