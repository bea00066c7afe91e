/**
 * What records keeps only for a while: the stored answers of BatchCreateContacts by idempotency
 * key (the import's chunk messages already processed), after BATCH_RESULT_RETENTION_DAYS. A chunk
 * is delivered again only while its import job runs (a redelivery, or the import sweeper's
 * re-publish within minutes), so a week is far past any repeat; activities stay. Audit entries are
 * kept AUDIT_RETENTION_DAYS (the AUDIT_RETENTION_DAYS setting; 365 by default), whatever became of their record,
 * a group's entries (audit-entry.ts) with its row.
 * The change feed keeps its events (and the intake its message ids) CHANGE_FEED_RETENTION_DAYS.
 */
import { isoDaysBefore, type RetentionRule } from '@crm/store';
import { CHANGE_FEED_RETENTION_DAYS } from '@crm/vocabulary';
import { auditEntries, auditGroupEntries } from './audit-collections';
import { feedEvents, feedIntake } from './change-feed-collections';
import { batchResults } from './collections';

/** The audit log's default retention (contract decisions: 365 days, a setting). */
export const AUDIT_RETENTION_DAYS = 365;

export function recordsRetentionRules(batchResultRetentionDays: number, auditRetentionDays = AUDIT_RETENTION_DAYS): RetentionRule[] {
  return [
    {
      collection: auditEntries,
      expired: (now) => [{ field: 'occurredAt', op: 'lt', value: isoDaysBefore(now, auditRetentionDays) }],
    },
    // A group's entries go with its row: the same time, the same retention.
    {
      collection: auditGroupEntries,
      expired: (now) => [{ field: 'occurredAt', op: 'lt', value: isoDaysBefore(now, auditRetentionDays) }],
    },
    {
      collection: batchResults,
      expired: (now) => [{ field: 'createdAt', op: 'lt', value: isoDaysBefore(now, batchResultRetentionDays) }],
    },
    { collection: feedEvents, expired: (now) => [{ field: 'fedAt', op: 'lt', value: isoDaysBefore(now, CHANGE_FEED_RETENTION_DAYS) }] },
    {
      collection: feedIntake,
      expired: (now) => [{ field: 'receivedAt', op: 'lt', value: isoDaysBefore(now, CHANGE_FEED_RETENTION_DAYS) }],
    },
  ];
}
