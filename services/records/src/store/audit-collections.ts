/**
 * The audit log's storage: one document per change to a record, written in the change's commit
 * (record-changes.ts). Listed newest first (occurredAt, then id), filtered on any one of the
 * indexed fields; kept AUDIT_RETENTION_DAYS (retention-rules.ts), whatever became of the record.
 */
import { defineCollection } from '@crm/store';
import type { AuditEntryDocument } from '../domain/audit-entry';

export const auditEntries = defineCollection<AuditEntryDocument>({
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

export const auditCollections = [auditEntries];
