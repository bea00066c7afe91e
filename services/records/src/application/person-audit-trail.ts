/**
 * The audit log's part in a privacy export and erasure: its entries about the person's records are
 * exported, and blanked in the erasure's commit (ids kept, values "[erased]"). The audit log fills
 * this slot where the records service is built (index.ts: `PersonData` takes `auditLog`); without
 * one, there are no entries to export or blank.
 */
import type { RecordChanges } from '../store/record-changes';

export interface PersonAuditTrail {
  /** The entries about these records, as the audit log's API shows them. */
  entriesAbout(workspaceId: string, recordIds: string[]): Promise<Record<string, unknown>[]>;
  /** Adds to `changes` the writes that blank those entries' values; answers how many entries they are. */
  blankEntriesAbout(changes: RecordChanges, workspaceId: string, recordIds: string[]): Promise<number>;
}

export const NO_AUDIT_TRAIL: PersonAuditTrail = {
  entriesAbout: () => Promise.resolve([]),
  blankEntriesAbout: () => Promise.resolve(0),
};
