/** Automation's kinds and limits: what a rule's trigger, conditions and steps may say. */
import { CONTACT_FIELDS, LEAD_FIELDS, OPPORTUNITY_FIELDS, fieldNames, type BuiltInFields } from './fields';

export const TRIGGER_KINDS = [
  'lead_created',
  'lead_status_changed',
  'proposal_status_changed',
  'contact_created',
  'opportunity_stage_changed',
] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

export const CONDITION_OPERATORS = ['eq', 'neq', 'in', 'not_in', 'contains', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const STEP_TYPES = ['send_email', 'wait', 'create_task', 'assign_user', 'send_notification'] as const;
export type StepType = (typeof STEP_TYPES)[number];

export const WAIT_UNITS = ['minutes', 'hours', 'days'] as const;
export type WaitUnit = (typeof WAIT_UNITS)[number];

/** An execution log's (enrollment's) status. */
export const LOG_STATUSES = ['in_progress', 'completed', 'failed', 'cancelled'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

export const TEMPLATE_CATEGORIES = ['lead_management', 'sales_pipeline', 'customer_success', 'support', 'custom'] as const;
/** A custom template's category: the built-in ones or any lower-case word of the same shape. */
export const TEMPLATE_CATEGORY_PATTERN = '^[a-z][a-z0-9_]{0,49}$';

/** What one step of an execution log ended as. */
export const STEP_RESULT_STATUSES = ['completed', 'skipped', 'failed'] as const;

/** The record types a rule enrolls. */
export const ENROLLED_RECORD_TYPES = ['lead', 'contact', 'opportunity'] as const;
export type EnrolledRecordType = (typeof ENROLLED_RECORD_TYPES)[number];

/** `{{<kind>.<field>}}` for each field its kind marks `placeholder` (fields/). */
const placeholdersOf = (kind: EnrolledRecordType, fields: BuiltInFields): readonly string[] =>
  fieldNames(fields, (field) => field.placeholder === true).map((name) => `${kind}.${name}`);

/** The merge placeholders of step text, per record type (written between braces: `{{lead.firstName}}`). */
export const RECORD_PLACEHOLDERS: Record<EnrolledRecordType, readonly string[]> = {
  lead: placeholdersOf('lead', LEAD_FIELDS),
  contact: placeholdersOf('contact', CONTACT_FIELDS),
  opportunity: placeholdersOf('opportunity', OPPORTUNITY_FIELDS),
};

/** Placeholders step text may hold whatever the record type. */
export const SHARED_PLACEHOLDERS: readonly string[] = ['workspace.name', 'owner.firstName', 'owner.lastName', 'owner.email'];

/** How a send_email step writes its email, and where a sent email stands. */
export const EMAIL_MODES = ['template', 'ai_generated'] as const;
export const EMAIL_STATUSES = ['queued', 'sending', 'sent', 'failed', 'unknown'] as const;

/** Rules and steps: names, texts (with placeholders), list lengths, and the longest wait per unit. */
export const AUTOMATION_LIMITS = {
  name: 200,
  text: 2000,
  conditions: 20,
  steps: 50,
  userIds: 50,
  dueDays: 365,
  waitMax: { minutes: 60 * 24 * 365, hours: 24 * 365, days: 365 },
} as const;

/** A user id as steps name one (`usr_...`). */
export const USER_ID_PATTERN = '^usr_[A-Za-z0-9_-]{1,100}$';
/** A step's user reference: the record's owner (`assigned_user`) or a user id. */
export const USER_REF_PATTERN = '^(assigned_user|usr_[A-Za-z0-9_-]{1,100})$';

/** The event types a webhook subscription may ask for (and the gateway's document lists). */
export const WEBHOOK_EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'lead.created',
  'lead.updated',
  'lead.deleted',
  'lead.converted',
  'account.created',
  'account.updated',
  'account.deleted',
  'opportunity.created',
  'opportunity.updated',
  'opportunity.deleted',
  'opportunity.stage_changed',
  'import.completed',
  'import.failed',
  'automation.run_failed',
  'webhook.test',
  // A person was erased (privacy): data {counts}, never the email.
  'person.erased',
] as const;
