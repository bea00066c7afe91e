/**
 * The automation service's collections. Engine state lives in the enrollments (one per record's run
 * through a rule, shown as the execution log); the sparse unique `activeKey` keeps a record in a
 * rule at most once at a time, (status, dueAt) lets the sweeper find overdue steps, and
 * (enrolledRecordId, status) a record's runs in progress when the record changes.
 */
import { defineCollection, leases, type StoredDocument } from '@crm/store';
import type { CustomTemplateDocument, EmailDocument, EnrollmentDocument, NotificationDocument, RuleDocument } from '../domain/model';
import type { WebhookDeliveryDocument, WebhookSubscriptionDocument } from '../domain/webhook-model';

export const rules = defineCollection<RuleDocument>({
  name: 'rules',
  scope: 'workspace',
  fields: { createdAt: 'string', trigger: 'string', isActive: 'boolean' },
  indexes: [{ fields: ['createdAt'] }, { fields: ['trigger', 'isActive'] }],
});

export const customTemplates = defineCollection<CustomTemplateDocument>({
  name: 'custom_templates',
  scope: 'workspace',
  fields: { createdAt: 'string', category: 'string', trigger: 'string' },
  indexes: [{ fields: ['createdAt'] }],
});

/** Install counts of the built-in templates (the templates themselves are code). */
export interface GalleryInstallDocument extends StoredDocument {
  installCount: number;
}
export const galleryInstalls = defineCollection<GalleryInstallDocument>({ name: 'gallery_installs', scope: 'global' });

export const enrollments = defineCollection<EnrollmentDocument>({
  name: 'enrollments',
  scope: 'workspace',
  fields: {
    ruleId: 'string',
    status: 'string',
    startedAt: 'string',
    dueAt: 'number',
    activeKey: 'string',
    enrolledRecordId: 'string',
    failureAnnounced: 'boolean',
  },
  indexes: [
    { fields: ['activeKey'], unique: true, sparse: true },
    { fields: ['ruleId', 'startedAt'] },
    { fields: ['ruleId', 'status', 'startedAt'] },
    { fields: ['status', 'dueAt'] },
    { fields: ['enrolledRecordId', 'status'] },
    // Only runs whose failure is not yet announced carry the field.
    { fields: ['failureAnnounced'], sparse: true },
    // Retention's purge of finished runs, and the sweeper's look for overdue steps and unannounced
    // failures, in every workspace at once.
    { fields: ['completedAt'], acrossWorkspaces: true },
    { fields: ['status', 'dueAt'], acrossWorkspaces: true },
    { fields: ['failureAnnounced'], acrossWorkspaces: true },
  ],
});

export const emails = defineCollection<EmailDocument>({
  name: 'emails',
  scope: 'workspace',
  fields: { createdAt: 'string', relatedTo: 'string' },
  indexes: [{ fields: ['createdAt'] }, { fields: ['relatedTo', 'createdAt'] }, { fields: ['createdAt'], acrossWorkspaces: true }],
});

/** Emails sent by a workspace on one UTC day (id `YYYY-MM-DD`), against its plan's daily quota (application/engine/email-quota.ts). */
export interface EmailQuotaDayDocument extends StoredDocument {
  count: number;
}
export const emailQuotaDays = defineCollection<EmailQuotaDayDocument>({
  name: 'email_quota_days',
  scope: 'workspace',
  fields: { count: 'number' },
});

export const notifications = defineCollection<NotificationDocument>({
  name: 'notifications',
  scope: 'workspace',
  fields: { createdAt: 'string', recipient: 'string', relatedTo: 'string' },
  indexes: [
    { fields: ['createdAt'] },
    { fields: ['recipient', 'createdAt'] },
    { fields: ['relatedTo', 'createdAt'] },
    { fields: ['createdAt'], acrossWorkspaces: true },
  ],
});

/**
 * Workspaces that have (had) active rules. The sweeper no longer walks them: it finds the
 * workspaces with overdue work on indexes across workspaces (application/engine/sweeper.ts).
 */
export interface EngineWorkspaceDocument extends StoredDocument {
  registeredAt: string;
}
export const engineWorkspaces = defineCollection<EngineWorkspaceDocument>({ name: 'engine_workspaces', scope: 'global' });

export const webhookSubscriptions = defineCollection<WebhookSubscriptionDocument>({
  name: 'webhook_subscriptions',
  scope: 'workspace',
  fields: { createdAt: 'string', isActive: 'boolean' },
  indexes: [{ fields: ['createdAt'] }, { fields: ['isActive'] }],
});

/** One document per delivery attempt; its id derives from the attempt's message, so a redelivered message logs once. */
export const webhookDeliveries = defineCollection<WebhookDeliveryDocument>({
  name: 'webhook_deliveries',
  scope: 'workspace',
  fields: { createdAt: 'string', subscriptionId: 'string', eventId: 'string', retryDueAt: 'number' },
  indexes: [
    { fields: ['subscriptionId', 'createdAt'] },
    { fields: ['subscriptionId', 'eventId'] },
    { fields: ['createdAt'] },
    // Retries not run yet, oldest due first (the recovery sweep); absent on every other attempt.
    { fields: ['retryDueAt'] },
    { fields: ['createdAt'], acrossWorkspaces: true },
    { fields: ['retryDueAt'], acrossWorkspaces: true },
  ],
});

/** Time-limited leases (the step sweeper's, retention's), so one worker at a time sweeps. */
export { leases };

export const automationCollections = [
  rules,
  customTemplates,
  galleryInstalls,
  enrollments,
  emails,
  emailQuotaDays,
  notifications,
  engineWorkspaces,
  webhookSubscriptions,
  webhookDeliveries,
  leases,
];
