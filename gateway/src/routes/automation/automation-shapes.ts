/**
 * Automation's request bodies (zod: shapes and types only; the service checks the rules) and
 * response shapes (proto → JSON), with their OpenAPI schemas.
 */
import { pageSchema } from '../records/record-shape';
import { z } from 'zod';
import type { automationV1 } from '@crm/grpc';
import type { JsonSchema } from '../../openapi/operation';

const condition = z.strictObject({
  field: z.string(),
  operator: z.string(),
  value: z.unknown().optional(),
});

const step = z.strictObject({
  type: z.string().optional(),
  order: z.number().int().optional(),
  config: z.record(z.string(), z.unknown()).nullable().optional(),
  label: z.string().nullable().optional(),
});

export const ruleBody = z.strictObject({
  name: z.string().nullable().optional(),
  trigger: z.string().nullable().optional(),
  triggerConditions: z.array(condition).nullable().optional(),
  exitConditions: z.array(condition).nullable().optional(),
  steps: z.array(step).nullable().optional(),
});
export type RuleBody = z.infer<typeof ruleBody>;

/** Fields of a rule representation the service fills; a client may send back what it read. */
export const READ_ONLY_RULE_FIELDS = ['id', 'isActive', 'stepCount', 'enrolledCount', 'installedFromTemplateId', 'createdAt', 'updatedAt'];

export const saveAsTemplateBody = z.strictObject({
  name: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  category: z.string().nullable().optional(),
});

export const installBody = z.strictObject({ name: z.string().max(200).nullable().optional() });

/** The body as the proto's Rule, with the names of the fields the client sent. */
export function ruleFromBody(body: RuleBody): { rule: Partial<automationV1.Rule>; fields: string[] } {
  const fields = Object.keys(body).filter((key) => (body as Record<string, unknown>)[key] !== undefined);
  const conditions = (list: RuleBody['triggerConditions']) =>
    (list ?? []).map((c) => ({ field: c.field, operator: c.operator, valueJson: c.value === undefined ? '' : JSON.stringify(c.value) }));
  return {
    fields,
    rule: {
      name: body.name ?? '',
      trigger: body.trigger ?? '',
      triggerConditions: conditions(body.triggerConditions),
      exitConditions: conditions(body.exitConditions),
      // A null or missing list is sent as empty; the service answers "required" for steps.
      steps: (body.steps ?? []).map((s) => ({
        type: s.type ?? '',
        order: s.order ?? 0,
        configJson: s.config === undefined || s.config === null ? '' : JSON.stringify(s.config),
        label: s.label ?? '',
      })),
    },
  };
}

function parse(text: string): unknown {
  return text === '' ? undefined : JSON.parse(text);
}

export function conditionJson(c: automationV1.Condition) {
  const value = parse(c.valueJson);
  return { field: c.field, operator: c.operator, ...(value === undefined ? {} : { value }) };
}

export function stepJson(s: automationV1.Step) {
  return { type: s.type, order: s.order, config: parse(s.configJson) ?? {}, ...(s.label ? { label: s.label } : {}) };
}

export function ruleListItem(rule: automationV1.Rule) {
  return {
    id: rule.id,
    name: rule.name,
    trigger: rule.trigger,
    isActive: rule.isActive,
    stepCount: rule.stepCount,
    enrolledCount: rule.enrolledCount,
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
  };
}

export function ruleJson(rule: automationV1.Rule) {
  return {
    id: rule.id,
    name: rule.name,
    trigger: rule.trigger,
    triggerConditions: rule.triggerConditions.map(conditionJson),
    exitConditions: rule.exitConditions.map(conditionJson),
    steps: rule.steps.map(stepJson),
    isActive: rule.isActive,
    stepCount: rule.stepCount,
    enrolledCount: rule.enrolledCount,
    installedFromTemplateId: rule.installedFromTemplateId || null,
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
  };
}

export function logJson(log: automationV1.ExecutionLog) {
  return {
    id: log.id,
    ruleId: log.ruleId,
    enrolledRecordType: log.enrolledRecordType,
    enrolledRecordId: log.enrolledRecordId,
    status: log.status,
    completedSteps: log.completedSteps,
    totalSteps: log.totalSteps,
    startedAt: log.startedAt,
    completedAt: log.completedAt || null,
    nextStepDueAt: log.nextStepDueAt || null,
    reason: log.reason || null,
    exit: log.exit?.condition ? { condition: conditionJson(log.exit.condition), metAt: log.exit.metAt } : null,
    steps: log.stepResults.map((r) => ({ order: r.order, type: r.type, status: r.status, detail: r.detail, finishedAt: r.finishedAt })),
  };
}

export function templateListItem(t: automationV1.Template) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    category: t.category,
    trigger: t.trigger,
    stepCount: t.stepCount,
    isBuiltIn: t.isBuiltIn,
    installCount: t.installCount,
    createdAt: t.createdAt,
  };
}

export function templateJson(t: automationV1.Template) {
  return {
    ...templateListItem(t),
    triggerConditions: t.triggerConditions.map(conditionJson),
    exitConditions: t.exitConditions.map(conditionJson),
    steps: t.steps.map(stepJson),
  };
}

export function emailJson(e: automationV1.Email) {
  return {
    id: e.id,
    to: e.to,
    subject: e.subject,
    body: e.body,
    mode: e.mode,
    status: e.status,
    relatedTo: e.relatedTo,
    createdAt: e.createdAt,
  };
}

export function notificationJson(n: automationV1.Notification) {
  return { id: n.id, recipient: n.recipient, message: n.message, relatedTo: n.relatedTo, createdAt: n.createdAt };
}

// ---------------------------------------------------------------- OpenAPI schemas (inline)

const timestamp = { type: 'string', format: 'date-time', examples: ['2025-03-01T09:30:00Z'] };
const conditionSchema: JsonSchema = {
  type: 'object',
  required: ['field', 'operator'],
  properties: {
    field: { type: 'string', description: "A field of the trigger's record type (camelCase).", examples: ['status'] },
    operator: { type: 'string', enum: ['eq', 'neq', 'in', 'not_in', 'contains', 'gt', 'gte', 'lt', 'lte', 'is_empty', 'is_not_empty'] },
    value: { description: 'The compared value; a list for in/not_in; left out for is_empty/is_not_empty.' },
  },
};
const stepSchema: JsonSchema = {
  type: 'object',
  required: ['type', 'order', 'config'],
  properties: {
    type: { type: 'string', enum: ['send_email', 'wait', 'create_task', 'assign_user', 'send_notification'] },
    order: { type: 'integer', minimum: 1 },
    config: {
      type: 'object',
      description:
        'send_email: mode (template|ai_generated), templateId (template mode), prompt (ai_generated mode), optional subject. wait: duration (integer ≥ 1), unit (minutes|hours|days). create_task: name, assignTo ("assigned_user" or a user id), dueDays (0..365). assign_user: mode (round_robin), userIds (user ids; an empty list is a draft that cannot be activated). send_notification: recipients ("assigned_user" or user ids), message. Text may carry placeholders of the trigger\'s record type: {{lead.firstName}}, {{lead.lastName}}, {{lead.email}}, {{lead.phone}}, {{lead.company}}, {{lead.status}}, {{lead.source}}, {{lead.leadScore}}; {{contact.firstName}}, {{contact.lastName}}, {{contact.email}}, {{contact.phone}}, {{contact.title}}, {{contact.stage}}; {{opportunity.name}}, {{opportunity.value}}, {{opportunity.stage}}, {{opportunity.probability}}, {{opportunity.closeDate}}, {{opportunity.accountName}}; and always {{workspace.name}}, {{owner.firstName}}, {{owner.lastName}}, {{owner.email}}.',
    },
    label: { type: 'string' },
  },
};
const triggerSchema = {
  type: 'string',
  enum: ['lead_created', 'lead_status_changed', 'proposal_status_changed', 'contact_created', 'opportunity_stage_changed'],
};

export const ruleSchema: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'name',
    'trigger',
    'triggerConditions',
    'exitConditions',
    'steps',
    'isActive',
    'stepCount',
    'enrolledCount',
    'createdAt',
  ],
  properties: {
    id: { type: 'string', examples: ['rul_0m7x2k1ab3f9c2d4e5f6a7b8'] },
    name: { type: 'string' },
    trigger: triggerSchema,
    triggerConditions: { type: 'array', items: conditionSchema },
    exitConditions: { type: 'array', items: conditionSchema },
    steps: { type: 'array', items: stepSchema },
    isActive: { type: 'boolean' },
    stepCount: { type: 'integer' },
    enrolledCount: { type: 'integer' },
    installedFromTemplateId: { type: ['string', 'null'] },
    createdAt: timestamp,
    updatedAt: timestamp,
  },
};

/** A paginated list (routes/records/list-query.ts makes it), walked by page, offset or cursor. */
const paginated = (items: JsonSchema): JsonSchema => pageSchema(items, 'A page.', { cursor: true });

export const ruleListSchema = paginated({
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    trigger: triggerSchema,
    isActive: { type: 'boolean' },
    stepCount: { type: 'integer' },
    enrolledCount: { type: 'integer' },
    createdAt: timestamp,
    updatedAt: timestamp,
  },
});

export const logListSchema: JsonSchema = {
  type: 'object',
  required: ['nextCursor', 'results'],
  properties: {
    count: { type: 'integer', description: 'Left out of pages read by `cursor`, which count nothing.' },
    nextCursor: {
      type: ['string', 'null'],
      description: 'Send it back as `cursor` (with the same filters) for the next page; null on the last page.',
    },
    results: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string', examples: ['log_5f0c...'] },
          ruleId: { type: 'string' },
          enrolledRecordType: { type: 'string', enum: ['lead', 'contact', 'opportunity'] },
          enrolledRecordId: { type: 'string' },
          status: { type: 'string', enum: ['in_progress', 'completed', 'failed', 'cancelled'] },
          completedSteps: { type: 'integer' },
          totalSteps: { type: 'integer' },
          startedAt: timestamp,
          completedAt: { type: ['string', 'null'], format: 'date-time' },
          nextStepDueAt: { type: ['string', 'null'], format: 'date-time', description: 'When the next step is due, while in progress.' },
          reason: { type: ['string', 'null'], description: 'Why the enrollment failed or was cancelled.' },
          exit: {
            type: ['object', 'null'],
            description:
              'The exit condition that ended the run and when it was found to hold (as the record changed, or as a step fell due); null when none did.',
            required: ['condition', 'metAt'],
            properties: { condition: conditionSchema, metAt: timestamp },
          },
          steps: {
            type: 'array',
            description:
              'What each step did so far: completed, skipped (e.g. an email to a recipient who opted out) or failed, with a detail.',
            items: {
              type: 'object',
              properties: {
                order: { type: 'integer' },
                type: { type: 'string' },
                status: { type: 'string', enum: ['completed', 'skipped', 'failed'] },
                detail: { type: 'string' },
                finishedAt: timestamp,
              },
            },
          },
        },
      },
    },
  },
};

const templateListItemProperties = {
  id: { type: 'string', examples: ['tmpl_new_lead_welcome'] },
  name: { type: 'string' },
  description: { type: 'string' },
  category: { type: 'string', examples: ['lead_management', 'sales_pipeline', 'customer_success', 'support', 'custom'] },
  trigger: triggerSchema,
  stepCount: { type: 'integer' },
  isBuiltIn: { type: 'boolean' },
  installCount: { type: 'integer' },
  createdAt: timestamp,
};

export const templateListSchema = paginated({ type: 'object', properties: templateListItemProperties });

export const templateSchema: JsonSchema = {
  type: 'object',
  properties: {
    ...templateListItemProperties,
    triggerConditions: { type: 'array', items: conditionSchema },
    exitConditions: { type: 'array', items: conditionSchema },
    steps: { type: 'array', items: stepSchema },
  },
};

export const emailListSchema = paginated({
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['eml_...'] },
    to: { type: 'string', format: 'email' },
    subject: { type: 'string' },
    body: { type: 'string' },
    mode: { type: 'string', enum: ['template', 'ai_generated'] },
    status: {
      type: 'string',
      enum: ['queued', 'sending', 'sent', 'failed', 'unknown'],
      description: 'unknown: the send broke off, or its worker stopped mid-send; such an email is never sent again.',
    },
    relatedTo: { type: 'string' },
    createdAt: timestamp,
  },
});

export const notificationListSchema = paginated({
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['ntf_...'] },
    recipient: { type: 'string', description: 'A user id.' },
    message: { type: 'string' },
    relatedTo: { type: 'string' },
    createdAt: timestamp,
  },
});
