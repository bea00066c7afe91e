/**
 * The audit log's storage: one document per change to a record, written in the change's commit
 * (record-changes.ts), or for a bulk write's changes one row standing for them all and their
 * entries beside it (audit-entry.ts). Listed newest first (occurredAt, then id), filtered on any
 * one of the indexed fields; kept AUDIT_RETENTION_DAYS (retention-rules.ts), whatever became of
 * the record.
 */
import { defineCollection } from '@crm/store';
import type { AuditEntryDocument, AuditGroupEntries, AuditRow } from '../domain/audit-entry';

export const auditEntries = defineCollection<AuditRow>({
  name: 'audit_entries',
  scope: 'workspace',
  fields: {
    occurredAt: 'string',
    recordId: 'string',
    recordKind: 'string',
    actorType: 'string',
    actorId: 'string',
    action: 'string',
    requestId: 'string',
  },
  indexes: [
    { fields: ['occurredAt'] },
    { fields: ['recordId', 'occurredAt'] },
    { fields: ['recordKind', 'occurredAt'] },
    { fields: ['actorType', 'occurredAt'] },
    { fields: ['actorId', 'occurredAt'] },
    { fields: ['action', 'occurredAt'] },
    { fields: ['requestId', 'occurredAt'] },
    // Retention's purge, in every workspace at once.
    { fields: ['occurredAt'], acrossWorkspaces: true },
  ],
});

/** A group's entries, read by the group's id: no index but retention's. */
export const auditGroupEntries = defineCollection<AuditGroupEntries>({
  name: 'audit_group_entries',
  scope: 'workspace',
  fields: { occurredAt: 'string' },
  indexes: [{ fields: ['occurredAt'], acrossWorkspaces: true }],
});

/**
 * A single write's entry, from its commit until it is moved into audit_entries with others
 * (audit-staging.ts): a row here has no index but its id, so the write's commit changes two pages
 * of the store for it rather than one for each of the log's nine indexes.
 */
export const auditStaged = defineCollection<AuditEntryDocument>({ name: 'audit_staged', scope: 'workspace' });

export const auditCollections = [auditEntries, auditGroupEntries, auditStaged];
