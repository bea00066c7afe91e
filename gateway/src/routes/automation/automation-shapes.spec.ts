import { z } from 'zod';
import type { automationV1 } from '@crm/grpc';
import type { JsonSchema } from '../../openapi/operation';
import {
  emailJson,
  emailListSchema,
  installSchema,
  logJson,
  logListSchema,
  notificationJson,
  notificationListSchema,
  READ_ONLY_RULE_FIELDS,
  ruleCreateSchema,
  ruleJson,
  ruleListItem,
  ruleListSchema,
  ruleSchema,
  ruleUpdateSchema,
  saveAsTemplateSchema,
  templateJson,
  templateListItem,
  templateListSchema,
  templateSchema,
} from './automation-shapes';

const AT = '2026-11-24T09:30:00.123Z';

const step = (type: string, order: number, config: object, label = ''): automationV1.Step => ({
  type,
  order,
  configJson: JSON.stringify(config),
  label,
});

/** A rule with every step type, as the service answers it. */
const rule: automationV1.Rule = {
  id: 'rul_1',
  name: 'Welcome',
  trigger: 'lead_created',
  triggerConditions: [
    { field: 'status', operator: 'in', valueJson: '["new","contacted"]' },
    { field: 'phone', operator: 'is_empty', valueJson: '' },
  ],
  exitConditions: [{ field: 'status', operator: 'eq', valueJson: '"lost"' }],
  steps: [
    step('send_email', 1, { mode: 'template', templateId: 'lead_welcome' }, 'Welcome email'),
    step('wait', 2, { duration: 3, unit: 'days' }),
    step('send_email', 3, { mode: 'ai_generated', prompt: 'Follow up with {{lead.firstName}}', subject: 'Hello' }),
    step('create_task', 4, { name: 'Call {{lead.firstName}}', assignTo: 'assigned_user', dueDays: 0 }),
    step('assign_user', 5, { mode: 'round_robin', userIds: [] }),
    step('send_notification', 6, { recipients: ['assigned_user', 'usr_2'], message: 'New lead' }),
  ],
  isActive: false,
  stepCount: 6,
  enrolledCount: 0,
  installedFromTemplateId: '',
  createdAt: AT,
  updatedAt: AT,
};

const template: automationV1.Template = {
  id: 'tmpl_new_lead_welcome',
  name: 'New lead welcome',
  description: 'Greets new leads.',
  category: 'lead_management',
  trigger: rule.trigger,
  triggerConditions: rule.triggerConditions,
  exitConditions: [],
  steps: rule.steps,
  stepCount: 6,
  isBuiltIn: true,
  installCount: 3,
  createdAt: '2025-01-01T00:00:00Z',
};

const log: automationV1.ExecutionLog = {
  id: 'log_1',
  ruleId: 'rul_1',
  enrolledRecordType: 'lead',
  enrolledRecordId: 'ld_1',
  status: 'cancelled',
  completedSteps: 1,
  totalSteps: 6,
  startedAt: AT,
  completedAt: AT,
  reason: 'An exit condition held.',
  stepResults: [{ order: 1, type: 'send_email', status: 'skipped', detail: 'Opted out.', finishedAt: AT }],
  nextStepDueAt: '',
  exit: { condition: { field: 'status', operator: 'eq', valueJson: '"lost"' }, metAt: AT },
};

const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, nextCursor: null, results });
/** The spec's "count and results only" lists. */
const counted = (results: unknown[]) => ({ count: results.length, results, nextCursor: null });
const accepts = (schema: JsonSchema, value: unknown) => z.fromJSONSchema(schema as never).safeParse(value).success;

describe('automation answers and their documented schemas', () => {
  it('a rule, alone and as a list item, is exactly what its schema says', () => {
    expect(accepts(ruleSchema, ruleJson(rule))).toBe(true);
    expect(accepts(ruleListSchema, counted([ruleListItem(rule)]))).toBe(true);
  });

  it('the rule and template lists are count and results only: links are refused', () => {
    expect(accepts(ruleListSchema, page([ruleListItem(rule)]))).toBe(false);
    expect(accepts(templateListSchema, page([templateListItem(template)]))).toBe(false);
    expect(accepts(logListSchema, page([logJson(log)]))).toBe(false);
  });

  it('a template, alone and as a list item, is exactly what its schema says', () => {
    expect(accepts(templateSchema, templateJson(template))).toBe(true);
    expect(accepts(templateListSchema, counted([templateListItem(template)]))).toBe(true);
  });

  it('execution logs with and without an exit, emails and notifications are what their schemas say', () => {
    const running = { ...log, status: 'in_progress', completedAt: '', reason: '', exit: null, nextStepDueAt: '2026-11-25T09:30:00Z' };
    expect(accepts(logListSchema, counted([logJson(log), logJson(running)]))).toBe(true);
    const email = {
      id: 'eml_1',
      to: 'ada@example.com',
      subject: 'Hi',
      body: 'Hello',
      mode: 'template',
      status: 'sent',
      relatedTo: 'ld_1',
      createdAt: AT,
    };
    expect(accepts(emailListSchema, page([emailJson(email as automationV1.Email)]))).toBe(true);
    const notification = { id: 'ntf_1', recipient: 'usr_2', message: 'New lead', relatedTo: 'ld_1', createdAt: AT };
    expect(accepts(notificationListSchema, page([notificationJson(notification)]))).toBe(true);
  });

  it('requires every field an answer always has, updatedAt included', () => {
    expect(ruleSchema.required).toEqual(Object.keys(ruleJson(rule)));
    expect(ruleSchema.required).toContain('updatedAt');
    expect(accepts(ruleSchema, { ...ruleJson(rule), updatedAt: undefined })).toBe(false);
  });

  it('refuses a step whose config does not fit its type', () => {
    const answer = ruleJson(rule) as { steps: Array<Record<string, unknown>> };
    const wrong = { ...answer, steps: [{ type: 'wait', order: 1, config: { message: 'Hi', recipients: ['assigned_user'] } }] };
    expect(accepts(ruleSchema, wrong)).toBe(false);
  });
});

describe('automation request bodies in the document', () => {
  const properties = (schema: JsonSchema) => schema.properties as Record<string, JsonSchema>;

  it('lists what a new rule requires, and states limits as schema keywords', () => {
    expect(ruleCreateSchema.required).toEqual(['name', 'trigger', 'steps']);
    expect(properties(ruleCreateSchema).name).toMatchObject({ type: 'string', maxLength: 200 });
    expect(properties(ruleCreateSchema).steps).toMatchObject({ minItems: 1, maxItems: 50 });
    expect(properties(ruleCreateSchema).triggerConditions).toMatchObject({ type: ['array', 'null'], maxItems: 20 });
  });

  it('describes each step type its own config, so a client can read config.message', () => {
    const steps = properties(ruleCreateSchema).steps!.items as { oneOf: JsonSchema[] };
    const notification = steps.oneOf.find((s) => (properties(s).type as { const?: string }).const === 'send_notification')!;
    expect(properties(properties(notification).config!)).toHaveProperty('message');
  });

  it('lets an update send back every read-only field of the rule it read', () => {
    expect(ruleUpdateSchema.required).toBeUndefined();
    for (const field of READ_ONLY_RULE_FIELDS) expect(properties(ruleUpdateSchema)[field]).toMatchObject({ readOnly: true });
    expect(accepts(ruleUpdateSchema, ruleJson(rule))).toBe(true);
  });

  it('marks null where the service takes it for none', () => {
    expect(properties(saveAsTemplateSchema).category).toMatchObject({ type: ['string', 'null'] });
    expect(properties(installSchema).name).toMatchObject({ type: ['string', 'null'], maxLength: 200 });
    expect(saveAsTemplateSchema.required).toEqual(['name']);
  });
});
