/**
 * What the automation service keeps only for a while: sent emails, notifications and finished runs
 * (with their execution logs) and webhook delivery attempts, each past its retention (days in the configuration). Emails still
 * queued or sending and runs in progress are never deleted.
 */
import { isoDaysBefore, type RetentionRule } from '@crm/store';
import { emails, enrollments, notifications, webhookDeliveries } from './collections';

export interface AutomationRetention {
  EMAIL_RETENTION_DAYS: number;
  NOTIFICATION_RETENTION_DAYS: number;
  RUN_RETENTION_DAYS: number;
  WEBHOOK_DELIVERY_RETENTION_DAYS: number;
}

export function automationRetentionRules(days: AutomationRetention): RetentionRule[] {
  return [
    {
      collection: emails,
      expired: (now) => [
        { field: 'status', op: 'in', values: ['sent', 'failed', 'unknown'] },
        { field: 'createdAt', op: 'lt', value: isoDaysBefore(now, days.EMAIL_RETENTION_DAYS) },
      ],
    },
    {
      collection: notifications,
      expired: (now) => [{ field: 'createdAt', op: 'lt', value: isoDaysBefore(now, days.NOTIFICATION_RETENTION_DAYS) }],
    },
    {
      collection: enrollments,
      expired: (now) => [
        { field: 'completedAt', op: 'lt', value: isoDaysBefore(now, days.RUN_RETENTION_DAYS) },
        // Ended (completed, failed, cancelled), said as a negation so that the planner reads the
        // purge off the completedAt index across workspaces rather than a workspace's status index.
        { not: [{ field: 'status', op: 'eq', value: 'in_progress' }] },
      ],
    },
    {
      collection: webhookDeliveries,
      expired: (now) => [{ field: 'createdAt', op: 'lt', value: isoDaysBefore(now, days.WEBHOOK_DELIVERY_RETENTION_DAYS) }],
    },
  ];
}
