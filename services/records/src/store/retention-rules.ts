/**
 * What records keeps only for a while: the stored answers of BatchCreateContacts by idempotency
 * key (the import's chunk messages already processed), after BATCH_RESULT_RETENTION_DAYS. A chunk
 * is delivered again only while its import job runs (a redelivery, or the import sweeper's
 * re-publish within minutes), so a week is far past any repeat; activities are the audit log and stay.
 * The change feed keeps its events (and the intake its message ids) CHANGE_FEED_RETENTION_DAYS.
 */
import { isoDaysBefore, type RetentionRule } from '@crm/store';
import { CHANGE_FEED_RETENTION_DAYS } from '@crm/vocabulary';
import { feedEvents, feedIntake } from './change-feed-collections';
import { batchResults } from './collections';

export function recordsRetentionRules(batchResultRetentionDays: number): RetentionRule[] {
  return [
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
