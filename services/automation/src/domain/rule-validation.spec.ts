import { DomainError } from '@crm/observability';
import { readinessProblems, validateRuleDefinition, validateTemplateFields, type RuleInput } from './rule-validation';

const valid = (): RuleInput => ({
  name: 'Welcome',
  trigger: 'lead_created',
  triggerConditions: [{ field: 'status', operator: 'eq', value: 'new' }],
  exitConditions: [{ field: 'status', operator: 'eq', value: 'converted' }],
  steps: [
    { type: 'send_email', order: 1, config: { mode: 'template', templateId: 'lead_welcome' } },
    { type: 'wait', order: 2, config: { duration: 2, unit: 'days' } },
    { type: 'create_task', order: 3, config: { name: 'Call {{lead.firstName}}', assignTo: 'assigned_user', dueDays: 1 } },
  ],
});

function errorsOf(input: RuleInput): Record<string, string[]> {
  try {
    validateRuleDefinition(input);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'validation_failed') return error.fields ?? {};
    throw error;
  }
  return {};
}

describe('rule validation', () => {
  it('accepts a complete rule and sorts its steps by order', () => {
    const input = valid();
    (input.steps as unknown[]).reverse();
    expect(validateRuleDefinition(input).steps.map((s) => s.order)).toEqual([1, 2, 3]);
  });

  it('requires a name, a trigger and steps', () => {
    expect(errorsOf({})).toEqual({
      name: ['This field is required.'],
      trigger: ['This field is required.'],
      steps: ['This field is required.'],
    });
  });

  it('refuses an unknown trigger kind', () => {
    expect(errorsOf({ ...valid(), trigger: 'deal_won' }).trigger).toEqual(['"deal_won" is not a valid choice.']);
  });

  it('refuses an empty step list', () => {
    expect(errorsOf({ ...valid(), steps: [] }).steps).toEqual(['A rule needs at least one step.']);
  });

  it('refuses an unknown step type', () => {
    expect(errorsOf({ ...valid(), steps: [{ type: 'send_sms', order: 1, config: {} }] })['steps.0.type']).toEqual([
      '"send_sms" is not a valid choice.',
    ]);
  });

  it('refuses gaps and repeats in step orders', () => {
    const steps = [
      { type: 'wait', order: 1, config: { duration: 1, unit: 'days' } },
      { type: 'wait', order: 3, config: { duration: 1, unit: 'days' } },
    ];
    expect(errorsOf({ ...valid(), steps }).steps?.[0]).toMatch(/1 to 2 without gaps/);
    expect(errorsOf({ ...valid(), steps: [steps[0], steps[0]] }).steps?.[0]).toMatch(/without gaps or repeats/);
  });

  it('names the failing config key of a step by its path', () => {
    const input = valid();
    (input.steps as Array<Record<string, unknown>>)[1] = { type: 'wait', order: 2, config: { unit: 'weeks' } };
    expect(errorsOf(input)).toEqual({
      'steps.1.config.unit': ['"weeks" is not a valid choice.'],
      'steps.1.config.duration': ['This field is required.'],
    });
  });

  it('refuses unknown and missing config keys for every step type', () => {
    const steps = [
      { type: 'send_email', order: 1, config: { mode: 'template' } },
      { type: 'send_email', order: 2, config: { mode: 'ai_generated' } },
      { type: 'create_task', order: 3, config: { name: 'x', dueDays: -1 } },
      { type: 'assign_user', order: 4, config: { mode: 'random', userIds: ['bob'] } },
      { type: 'send_notification', order: 5, config: { recipients: [], message: '', colour: 'red' } },
    ];
    expect(errorsOf({ ...valid(), steps })).toEqual({
      'steps.0.config.templateId': ['This field is required.'],
      'steps.1.config.prompt': ['This field is required.'],
      'steps.2.config.assignTo': ['This field is required.'],
      'steps.2.config.dueDays': ['Expected a whole number from 0 to 365.'],
      'steps.3.config.mode': ['"random" is not a valid choice.'],
      'steps.3.config.userIds.0': ['Expected a user id (usr_...).'],
      'steps.4.config.colour': ['Unknown field.'],
      'steps.4.config.recipients': ['Expected a non-empty list of recipients.'],
      'steps.4.config.message': ['This field may not be blank.'],
    });
  });

  it('refuses an email template written for another record type', () => {
    const input = { ...valid(), steps: [{ type: 'send_email', order: 1, config: { mode: 'template', templateId: 'contact_welcome' } }] };
    expect(errorsOf(input)['steps.0.config.templateId']?.[0]).toMatch(/written for a contact, not a lead/);
  });

  it("refuses conditions on fields the trigger's record type does not have", () => {
    const input = { ...valid(), triggerConditions: [{ field: 'stage', operator: 'eq', value: 'proposal' }] };
    expect(errorsOf(input)['triggerConditions.0.field']).toEqual(['Unknown field "stage" for a lead.']);
  });

  it('refuses unknown operators and values of the wrong shape', () => {
    const input = {
      ...valid(),
      triggerConditions: [
        { field: 'status', operator: 'matches', value: 'n.*' },
        { field: 'status', operator: 'eq', value: 'hot' },
        { field: 'leadScore', operator: 'gt', value: 'high' },
        { field: 'status', operator: 'in', value: 'new' },
        { field: 'email', operator: 'is_empty', value: 'x' },
        { field: 'firstName', operator: 'lt', value: 'M' },
      ],
    };
    expect(errorsOf(input)).toEqual({
      'triggerConditions.0.operator': ['"matches" is not a valid choice.'],
      'triggerConditions.1.value': ['"hot" is not a valid choice.'],
      'triggerConditions.2.value': ['A valid number is required.'],
      'triggerConditions.3.value': ['Expected a non-empty list of values.'],
      'triggerConditions.4.value': ['No value is compared by is_empty; leave it out.'],
      'triggerConditions.5.value': ['lt compares number or date fields only.'],
    });
  });

  it('allows event fields in trigger conditions but not in exit conditions', () => {
    const condition = { field: 'previousStatus', operator: 'eq', value: 'new' };
    const input = { ...valid(), trigger: 'lead_status_changed', triggerConditions: [condition], exitConditions: [condition] };
    expect(errorsOf(input)).toEqual({ 'exitConditions.0.field': ['Unknown field "previousStatus" for a lead.'] });
  });

  it('refuses placeholders that do not exist or belong to another record type', () => {
    const input = valid();
    (input.steps as Array<Record<string, unknown>>)[2] = {
      type: 'create_task',
      order: 3,
      config: { name: 'Call {{lead.nickname}} about {{opportunity.name}} for {{workspace.name}}', assignTo: 'assigned_user', dueDays: 1 },
    };
    const messages = errorsOf(input)['steps.2.config.name'] ?? [];
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/Unknown placeholder \{\{lead.nickname\}\}/);
    expect(messages[1]).toMatch(/Unknown placeholder \{\{opportunity.name\}\}/);
  });

  it('keeps an assign_user step without users as a draft that is not ready to activate', () => {
    const definition = validateRuleDefinition({
      ...valid(),
      steps: [{ type: 'assign_user', order: 1, config: { mode: 'round_robin', userIds: [] } }],
    });
    expect(readinessProblems(definition)).toEqual({
      'steps.0.config.userIds': ['Choose at least one user to assign before activating the rule.'],
    });
  });

  it('checks template fields, defaulting the category to custom', () => {
    expect(validateTemplateFields({ name: ' Mine ' })).toEqual({ name: 'Mine', description: '', category: 'custom' });
    expect(() => validateTemplateFields({ description: 'x' })).toThrow(DomainError);
  });
});
