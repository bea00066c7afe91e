/**
 * Automation's resources, each described once (routes/field-table.ts): the request bodies (what the
 * gateway checks, types only, beside the rules the automation service checks) and the answers
 * (proto → JSON), from which the route's validation, its answers and its OpenAPI schemas all come.
 */
import { z } from 'zod';
import type { automationV1 } from '@crm/grpc';
import {
  AUTOMATION_LIMITS,
  CONDITION_OPERATORS,
  EMAIL_MODES,
  EMAIL_STATUSES,
  ENROLLED_RECORD_TYPES,
  LOG_STATUSES,
  RECORD_PLACEHOLDERS,
  SHARED_PLACEHOLDERS,
  STEP_RESULT_STATUSES,
  STEP_TYPES,
  TEMPLATE_CATEGORIES,
  TEMPLATE_CATEGORY_PATTERN,
  TRIGGER_KINDS,
  USER_ID_PATTERN,
  USER_REF_PATTERN,
  WAIT_UNITS,
  type StepType,
} from '@crm/vocabulary';
import type { JsonSchema } from '../../openapi/operation';
import {
  answerSchema,
  bodyCheck,
  bodySchemaOf,
  readOnlyFields,
  renderAnswer,
  type AnswerField,
  type AnswerTable,
  type BodyTable,
} from '../field-table';
import { countedListSchema, pageSchema } from '../records/record-shape';
import { boundedText } from '../validate';

// ---------------------------------------------------------------- vocabulary (libs/vocabulary, as the service has it)

export { CONDITION_OPERATORS, LOG_STATUSES, STEP_TYPES, TEMPLATE_CATEGORIES, TRIGGER_KINDS, type StepType };
const RECORD_TYPES = ENROLLED_RECORD_TYPES;
const LIMITS = AUTOMATION_LIMITS;
const WAIT_MAX = AUTOMATION_LIMITS.waitMax;
const USER_ID = USER_ID_PATTERN;
const USER_REF = USER_REF_PATTERN;
const CATEGORY = TEMPLATE_CATEGORY_PATTERN;
/** Not blank: at least one character that is not white space. */
const NOT_BLANK = '\\S';

// ---------------------------------------------------------------- schema pieces

const timestamp: JsonSchema = { type: 'string', format: 'date-time', examples: ['2025-03-01T09:30:00Z'] };
const nullableTimestamp = (description: string): JsonSchema => ({ type: ['string', 'null'], format: 'date-time', description });
const choice = (values: readonly string[], description?: string): JsonSchema => ({
  type: 'string',
  enum: [...values],
  ...(description ? { description } : {}),
});
const text = (max: number, description?: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: max,
  pattern: NOT_BLANK,
  ...(description ? { description } : {}),
});
const integer = (minimum: number, maximum?: number): JsonSchema => ({
  type: 'integer',
  minimum,
  ...(maximum === undefined ? {} : { maximum }),
});
const id = (example: string): JsonSchema => ({ type: 'string', examples: [example] });
const object = (required: string[], properties: Record<string, JsonSchema>, description?: string): JsonSchema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
  additionalProperties: false,
});

const braced = (names: readonly string[]) => names.map((name) => `{{${name}}}`).join(', ');
const PLACEHOLDERS = `Text may carry placeholders of the trigger's record type: ${ENROLLED_RECORD_TYPES.map((type) => braced(RECORD_PLACEHOLDERS[type])).join('; ')}; and always ${braced(SHARED_PLACEHOLDERS)}.`;

/** Each step type's config, as the service accepts and stores it (services/automation/src/domain/steps/). */
const STEP_CONFIGS: Record<StepType, JsonSchema> = {
  send_email: {
    description: "A gallery email template for the trigger's record type (mode `template`), or an AI prompt (mode `ai_generated`).",
    oneOf: [
      object(['mode', 'templateId'], {
        mode: { type: 'string', const: 'template' },
        templateId: {
          type: 'string',
          minLength: 1,
          description: "An email template of the gallery written for the trigger's record type.",
        },
        subject: text(LIMITS.name, 'Default: made from the template.'),
      }),
      object(['mode', 'prompt'], {
        mode: { type: 'string', const: 'ai_generated' },
        prompt: text(LIMITS.text),
        subject: text(LIMITS.name),
      }),
    ],
  },
  wait: {
    description: 'A whole number of minutes, hours or days, at most a year.',
    oneOf: WAIT_UNITS.map((unit) =>
      object(['duration', 'unit'], { duration: integer(1, WAIT_MAX[unit]), unit: { type: 'string', const: unit } }),
    ),
  },
  create_task: object(['name', 'assignTo', 'dueDays'], {
    name: text(LIMITS.name),
    assignTo: { type: 'string', pattern: USER_REF, description: '"assigned_user" (the record\'s owner) or a user id.' },
    dueDays: integer(0, LIMITS.dueDays),
  }),
  assign_user: object(['mode', 'userIds'], {
    mode: { type: 'string', const: 'round_robin' },
    userIds: {
      type: 'array',
      items: { type: 'string', pattern: USER_ID },
      maxItems: LIMITS.userIds,
      uniqueItems: true,
      description: 'Distinct user ids; an empty list is a draft that cannot be activated.',
    },
  }),
  send_notification: object(['recipients', 'message'], {
    recipients: {
      type: 'array',
      items: { type: 'string', pattern: USER_REF },
      minItems: 1,
      description: '"assigned_user" (the record\'s owner) or user ids.',
    },
    message: text(LIMITS.text),
  }),
};

// ---------------------------------------------------------------- conditions and steps (in bodies and answers)

const conditionValue: JsonSchema = {
  description:
    'The compared value; a non-empty list for in/not_in; a number or an ISO 8601 date for gt/gte/lt/lte; left out for is_empty/is_not_empty.',
};

const conditionFields = {
  field: {
    check: z.string(),
    rules: { type: 'string', minLength: 1, description: "A field of the trigger's record type (camelCase).", examples: ['status'] },
    required: true,
  },
  operator: { check: z.string(), rules: choice(CONDITION_OPERATORS), required: true },
  value: { check: z.unknown().optional(), rules: conditionValue },
} satisfies BodyTable;

const stepFields = {
  type: { check: z.string().optional(), rules: choice(STEP_TYPES), required: true },
  order: {
    check: z.number().int().optional(),
    rules: { ...integer(1, LIMITS.steps), description: 'Orders are 1..n without gaps.' },
    required: true,
  },
  config: { check: z.record(z.string(), z.unknown()).nullable().optional(), rules: { type: 'object' }, required: true },
  label: { check: z.string().nullable().optional(), rules: { type: ['string', 'null'], maxLength: LIMITS.name } },
} satisfies BodyTable;

const conditions = (description: string): JsonSchema => ({
  type: ['array', 'null'],
  items: bodySchemaOf(conditionFields, 'create'),
  maxItems: LIMITS.conditions,
  description: `${description} Null or left out: none.`,
});

const conditionAnswer: AnswerTable<automationV1.Condition> = {
  field: { schema: conditionFields.field.rules, value: (c) => c.field },
  operator: { schema: conditionFields.operator.rules, value: (c) => c.operator },
  value: { schema: conditionValue, value: (c) => parse(c.valueJson), optional: true },
};

const stepAnswer: Record<'type' | 'order' | 'config' | 'label', AnswerField<automationV1.Step>> = {
  type: { schema: choice(STEP_TYPES), value: (s) => s.type },
  order: { schema: integer(1, LIMITS.steps), value: (s) => s.order },
  config: { schema: { type: 'object' }, value: (s) => parse(s.configJson) ?? {} },
  label: { schema: { type: 'string', minLength: 1, maxLength: LIMITS.name }, value: (s) => s.label || undefined, optional: true },
};

/** A step in a body or an answer: one variant per type, its `type` fixed and its config as that type has it. */
const perStepType = (variant: (type: StepType, typeSchema: JsonSchema) => JsonSchema): JsonSchema => ({
  description: PLACEHOLDERS,
  oneOf: STEP_TYPES.map((type) => variant(type, { type: 'string', const: type })),
});
const stepBodySchema = perStepType((type, typeSchema) =>
  bodySchemaOf(
    { ...stepFields, type: { ...stepFields.type, rules: typeSchema }, config: { ...stepFields.config, rules: STEP_CONFIGS[type] } },
    'create',
  ),
);
const stepAnswerSchema = perStepType((type, typeSchema) =>
  answerSchema({
    ...stepAnswer,
    type: { ...stepAnswer.type, schema: typeSchema },
    config: { ...stepAnswer.config, schema: STEP_CONFIGS[type] },
  }),
);

function parse(json: string): unknown {
  return json === '' ? undefined : JSON.parse(json);
}

const conditionList = { type: 'array', items: answerSchema(conditionAnswer), maxItems: LIMITS.conditions };

/** What a rule and a template both define, in their answers. */
type Definition = Pick<automationV1.Rule, 'triggerConditions' | 'exitConditions' | 'steps'>;
const definitionAnswer: Record<keyof Definition, AnswerField<Definition>> = {
  triggerConditions: { schema: conditionList, value: (r) => r.triggerConditions.map(conditionJson) },
  exitConditions: { schema: conditionList, value: (r) => r.exitConditions.map(conditionJson) },
  steps: {
    schema: { type: 'array', items: stepAnswerSchema, minItems: 1 },
    value: (r) => r.steps.map(stepJson),
  },
};

// ---------------------------------------------------------------- rules

const ruleFields = {
  name: { check: z.string().nullable().optional(), rules: text(LIMITS.name, 'Trimmed.'), required: true },
  trigger: { check: z.string().nullable().optional(), rules: choice(TRIGGER_KINDS), required: true },
  triggerConditions: {
    check: z.array(bodyCheck(conditionFields)).nullable().optional(),
    rules: conditions(
      "What a record must match to enroll: fields of the trigger's record type (lead for lead_created/lead_status_changed, contact for contact_created, opportunity for opportunity_stage_changed/proposal_status_changed), or the event's previousStatus/previousStage/change.",
    ),
  },
  exitConditions: {
    check: z.array(bodyCheck(conditionFields)).nullable().optional(),
    rules: conditions("The first one to hold ends the run: fields of the trigger's record type."),
  },
  steps: {
    check: z.array(bodyCheck(stepFields)).nullable().optional(),
    rules: { type: 'array', items: stepBodySchema, minItems: 1, maxItems: LIMITS.steps },
    required: true,
  },
} satisfies BodyTable;

export const ruleBody = bodyCheck(ruleFields);
export type RuleBody = z.infer<typeof ruleBody>;

const ruleAnswer: AnswerTable<automationV1.Rule> = {
  id: { schema: id('rul_0m7x2k1ab3f9c2d4e5f6a7b8'), value: (r) => r.id, listed: true },
  name: { schema: { type: 'string', minLength: 1, maxLength: LIMITS.name }, value: (r) => r.name, listed: true },
  trigger: { schema: choice(TRIGGER_KINDS), value: (r) => r.trigger, listed: true },
  triggerConditions: definitionAnswer.triggerConditions,
  exitConditions: definitionAnswer.exitConditions,
  steps: definitionAnswer.steps,
  isActive: { schema: { type: 'boolean' }, value: (r) => r.isActive, listed: true },
  stepCount: { schema: integer(1), value: (r) => r.stepCount, listed: true },
  enrolledCount: { schema: integer(0), value: (r) => r.enrolledCount, listed: true },
  installedFromTemplateId: {
    schema: { type: ['string', 'null'], description: 'The template (`tmpl_...`) the rule was installed from, or null.' },
    value: (r) => r.installedFromTemplateId || null,
  },
  createdAt: { schema: timestamp, value: (r) => r.createdAt, listed: true },
  updatedAt: { schema: timestamp, value: (r) => r.updatedAt, listed: true },
};

/** Fields of a rule's answer the service fills; a client may send them back in a PATCH (ignored). */
export const READ_ONLY_RULE_FIELDS = readOnlyFields(ruleAnswer, ruleFields);

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

// ---------------------------------------------------------------- execution logs

const stepResultAnswer: AnswerTable<automationV1.StepResult> = {
  order: { schema: integer(1), value: (r) => r.order },
  type: { schema: choice(STEP_TYPES), value: (r) => r.type },
  status: { schema: choice(STEP_RESULT_STATUSES), value: (r) => r.status },
  detail: { schema: { type: 'string' }, value: (r) => r.detail },
  finishedAt: { schema: timestamp, value: (r) => r.finishedAt },
};

const runExitAnswer: AnswerTable<automationV1.RunExit> = {
  condition: { schema: answerSchema(conditionAnswer), value: (e) => conditionJson(e.condition!) },
  metAt: { schema: timestamp, value: (e) => e.metAt },
};

const logAnswer: AnswerTable<automationV1.ExecutionLog> = {
  id: { schema: id('log_5f0c...'), value: (l) => l.id },
  ruleId: { schema: { type: 'string' }, value: (l) => l.ruleId },
  enrolledRecordType: { schema: choice(RECORD_TYPES), value: (l) => l.enrolledRecordType },
  enrolledRecordId: { schema: { type: 'string' }, value: (l) => l.enrolledRecordId },
  status: { schema: choice(LOG_STATUSES), value: (l) => l.status },
  completedSteps: { schema: integer(0), value: (l) => l.completedSteps },
  totalSteps: { schema: integer(0), value: (l) => l.totalSteps },
  startedAt: { schema: timestamp, value: (l) => l.startedAt },
  completedAt: { schema: nullableTimestamp('When the run ended; null while in progress.'), value: (l) => l.completedAt || null },
  nextStepDueAt: { schema: nullableTimestamp('When the next step is due, while in progress.'), value: (l) => l.nextStepDueAt || null },
  reason: {
    schema: { type: ['string', 'null'], description: 'Why the enrollment failed or was cancelled.' },
    value: (l) => l.reason || null,
  },
  exit: {
    schema: {
      ...answerSchema(
        runExitAnswer,
        'full',
        'The exit condition that ended the run and when it was found to hold (as the record changed, or as a step fell due); null when none did.',
      ),
      type: ['object', 'null'],
    },
    value: (l) => (l.exit?.condition ? renderAnswer(runExitAnswer, l.exit) : null),
  },
  steps: {
    schema: {
      type: 'array',
      description: 'What each step did so far: completed, skipped (e.g. an email to a recipient who opted out) or failed, with a detail.',
      items: answerSchema(stepResultAnswer),
    },
    value: (l) => l.stepResults.map((r) => renderAnswer(stepResultAnswer, r)),
  },
};

// ---------------------------------------------------------------- templates

const templateFields = {
  name: { check: z.string().nullable().optional(), rules: text(LIMITS.name, 'Trimmed.'), required: true },
  description: {
    check: z.string().nullable().optional(),
    rules: { type: ['string', 'null'], maxLength: LIMITS.text, description: 'Default empty.' },
  },
  category: {
    check: z.string().nullable().optional(),
    rules: {
      type: ['string', 'null'],
      pattern: `${CATEGORY}|^$`,
      description: 'Lower-case letters, digits and underscores (for example customer_success); default `custom`.',
    },
  },
} satisfies BodyTable;

export const saveAsTemplateBody = bodyCheck(templateFields);

const installFields = {
  name: {
    check: boundedText({ max: LIMITS.name }).nullable().optional(),
    rules: { type: ['string', 'null'], maxLength: LIMITS.name, description: "Default: the template's name." },
  },
} satisfies BodyTable;

export const installBody = bodyCheck(installFields);

const templateAnswer: AnswerTable<automationV1.Template> = {
  id: { schema: id('tmpl_new_lead_welcome'), value: (t) => t.id, listed: true },
  name: { schema: { type: 'string', minLength: 1, maxLength: LIMITS.name }, value: (t) => t.name, listed: true },
  description: { schema: { type: 'string', maxLength: LIMITS.text }, value: (t) => t.description, listed: true },
  category: { schema: { type: 'string', pattern: CATEGORY, examples: [...TEMPLATE_CATEGORIES] }, value: (t) => t.category, listed: true },
  trigger: { schema: choice(TRIGGER_KINDS), value: (t) => t.trigger, listed: true },
  stepCount: { schema: integer(1), value: (t) => t.stepCount, listed: true },
  isBuiltIn: { schema: { type: 'boolean' }, value: (t) => t.isBuiltIn, listed: true },
  installCount: { schema: integer(0), value: (t) => t.installCount, listed: true },
  createdAt: { schema: timestamp, value: (t) => t.createdAt, listed: true },
  ...definitionAnswer,
};

// ---------------------------------------------------------------- what the engine sent

const emailAnswer: AnswerTable<automationV1.Email> = {
  id: { schema: id('eml_...'), value: (e) => e.id },
  to: { schema: { type: 'string', format: 'email' }, value: (e) => e.to },
  subject: { schema: { type: 'string' }, value: (e) => e.subject },
  body: { schema: { type: 'string' }, value: (e) => e.body },
  mode: { schema: choice(EMAIL_MODES), value: (e) => e.mode },
  status: {
    schema: choice(EMAIL_STATUSES, 'unknown: the send broke off, or its worker stopped mid-send; such an email is never sent again.'),
    value: (e) => e.status,
  },
  relatedTo: { schema: { type: 'string', description: 'The record the email was about.' }, value: (e) => e.relatedTo },
  createdAt: { schema: timestamp, value: (e) => e.createdAt },
};

const notificationAnswer: AnswerTable<automationV1.Notification> = {
  id: { schema: id('ntf_...'), value: (n) => n.id },
  recipient: { schema: { type: 'string', pattern: USER_ID, description: 'A user id.' }, value: (n) => n.recipient },
  message: { schema: { type: 'string' }, value: (n) => n.message },
  relatedTo: { schema: { type: 'string' }, value: (n) => n.relatedTo },
  createdAt: { schema: timestamp, value: (n) => n.createdAt },
};

// ---------------------------------------------------------------- answers and their schemas, from the tables

export const conditionJson = (c: automationV1.Condition) => renderAnswer(conditionAnswer, c);
export const stepJson = (s: automationV1.Step) => renderAnswer(stepAnswer, s);
export const ruleJson = (rule: automationV1.Rule) => renderAnswer(ruleAnswer, rule);
export const ruleListItem = (rule: automationV1.Rule) => renderAnswer(ruleAnswer, rule, 'listed');
export const logJson = (log: automationV1.ExecutionLog) => renderAnswer(logAnswer, log);
export const templateJson = (t: automationV1.Template) => renderAnswer(templateAnswer, t);
export const templateListItem = (t: automationV1.Template) => renderAnswer(templateAnswer, t, 'listed');
export const emailJson = (e: automationV1.Email) => renderAnswer(emailAnswer, e);
export const notificationJson = (n: automationV1.Notification) => renderAnswer(notificationAnswer, n);

/** A paginated list (routes/records/list-query.ts makes it), walked by page, offset or cursor. */
const paginated = (items: JsonSchema): JsonSchema => pageSchema(items, 'A page.', { cursor: true });

export const ruleSchema = answerSchema(ruleAnswer, 'full', 'An automation rule.');
export const ruleListSchema = countedListSchema(
  answerSchema(ruleAnswer, 'listed', 'An automation rule as a list item.'),
  'Rules, newest first.',
);
export const templateSchema = answerSchema(templateAnswer, 'full', 'An automation template.');
export const templateListSchema = countedListSchema(
  answerSchema(templateAnswer, 'listed', 'An automation template as a list item.'),
  'Templates of the gallery and the workspace.',
);
export const emailListSchema = paginated(answerSchema(emailAnswer));
export const notificationListSchema = paginated(answerSchema(notificationAnswer));

/** The spec answers these with count and results only; nextCursor walks on. */
export const logListSchema = countedListSchema(answerSchema(logAnswer), 'Execution logs, newest first.');

/** Request body schemas: create lists what the service requires; update takes any subset and ignores read-only fields. */
export const ruleCreateSchema = bodySchemaOf(ruleFields, 'create');
export const ruleUpdateSchema = bodySchemaOf(ruleFields, 'update', { readOnly: READ_ONLY_RULE_FIELDS });
export const saveAsTemplateSchema = bodySchemaOf(templateFields, 'create');
export const installSchema = bodySchemaOf(installFields, 'update');
