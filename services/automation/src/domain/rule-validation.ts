/**
 * The rules a rule definition must keep, checked in one pass so a 422 lists every failing field
 * (paths such as `steps.2.config.duration`, array positions from 0):
 * - a name, a known trigger kind, at least one step, orders 1..n without gaps;
 * - conditions on known fields of the trigger's record type, with a known operator and a value of
 *   the right shape for both (a value set's members only, numbers for numeric fields, ...);
 * - each step type's config keys, no more and no fewer, and their values (steps/, one file per type);
 *   placeholders only from the trigger's set;
 * - no rule that could re-trigger itself (see loop-guard.ts for the runtime bound).
 */
import { FieldErrorList, type FieldErrors } from '@crm/observability';
import {
  AUTOMATION_LIMITS,
  CUSTOM_FIELD_KEY_PATTERN,
  CUSTOM_FIELDS_PREFIX,
  TEMPLATE_CATEGORY_PATTERN,
  characterCount,
} from '@crm/vocabulary';
import {
  CONDITION_OPERATORS,
  STEP_TYPES,
  TRIGGER_KINDS,
  type Condition,
  type ConditionOperator,
  type JsonValue,
  type RecordType,
  type RuleDefinition,
  type Step,
  type TriggerKind,
} from './model';
import { checkStepConfig } from './steps';
import { isInteger } from './steps/step-checks';
import { EVENT_FIELDS, RECORD_FIELDS, TRIGGERS, type FieldSpec } from './triggers';

export const LIMITS = AUTOMATION_LIMITS;
const CATEGORY = new RegExp(TEMPLATE_CATEGORY_PATTERN);

export const MESSAGES = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  choice: (value: unknown) => `"${String(value)}" is not a valid choice.`,
  unknownKey: 'Unknown field.',
} as const;

/** What the service hands in: the client's values, not yet checked (conditions' values and steps' configs parsed from JSON). */
export interface RuleInput {
  name?: unknown;
  trigger?: unknown;
  triggerConditions?: unknown;
  exitConditions?: unknown;
  steps?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown): value is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof value);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Checks a whole rule definition; returns it normalised (trimmed name, steps sorted by order) or throws a 422. */
export function validateRuleDefinition(input: RuleInput): RuleDefinition {
  const problems = new FieldErrorList();
  const name = checkName(input.name, 'name', problems);
  let trigger: TriggerKind | undefined;
  if (input.trigger === undefined || input.trigger === null || input.trigger === '') problems.add('trigger', MESSAGES.required);
  else if (typeof input.trigger !== 'string' || !(TRIGGER_KINDS as readonly string[]).includes(input.trigger))
    problems.add('trigger', MESSAGES.choice(input.trigger));
  else trigger = input.trigger as TriggerKind;
  const recordType = trigger ? TRIGGERS[trigger].recordType : undefined;
  const triggerConditions = checkConditions(input.triggerConditions, 'triggerConditions', trigger, recordType, true, problems);
  const exitConditions = checkConditions(input.exitConditions, 'exitConditions', trigger, recordType, false, problems);
  const steps = checkSteps(input.steps, recordType, problems);
  problems.throwIfAny();
  return { name: name!, trigger: trigger!, triggerConditions, exitConditions, steps: [...steps].sort((a, b) => a.order - b.order) };
}

function checkName(value: unknown, path: string, problems: FieldErrorList): string | undefined {
  if (value === undefined || value === null) {
    problems.add(path, MESSAGES.required);
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.add(path, 'Not a valid string.');
    return undefined;
  }
  const trimmed = value.trim();
  if (!trimmed) problems.add(path, MESSAGES.blank);
  else if (characterCount(trimmed) > LIMITS.name) problems.add(path, `Ensure this field has no more than ${LIMITS.name} characters.`);
  return trimmed;
}

/** A template's or a save-as-template's name, description and category, in the same words. */
export function validateTemplateFields(input: { name?: unknown; description?: unknown; category?: unknown }): {
  name: string;
  description: string;
  category: string;
} {
  const problems = new FieldErrorList();
  const name = checkName(input.name, 'name', problems);
  let description = '';
  if (input.description !== undefined && input.description !== null) {
    if (typeof input.description !== 'string') problems.add('description', 'Not a valid string.');
    else if (characterCount(input.description) > LIMITS.text)
      problems.add('description', `Ensure this field has no more than ${LIMITS.text} characters.`);
    else description = input.description.trim();
  }
  let category = 'custom';
  if (input.category !== undefined && input.category !== null && input.category !== '') {
    if (typeof input.category !== 'string' || !CATEGORY.test(input.category)) {
      problems.add('category', 'Use lower-case letters, digits and underscores (for example customer_success).');
    } else category = input.category;
  }
  problems.throwIfAny();
  return { name: name!, description, category };
}

function checkConditions(
  value: unknown,
  path: string,
  trigger: TriggerKind | undefined,
  recordType: RecordType | undefined,
  allowEventFields: boolean,
  problems: FieldErrorList,
): Condition[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.add(path, 'Expected a list of conditions.');
    return [];
  }
  if (value.length > LIMITS.conditions) problems.add(path, `Ensure this list has no more than ${LIMITS.conditions} conditions.`);
  const out: Condition[] = [];
  value.forEach((raw, index) => {
    const at = `${path}.${index}`;
    if (!isObject(raw)) {
      problems.add(at, 'Expected a condition object with field, operator and value.');
      return;
    }
    for (const key of Object.keys(raw))
      if (!['field', 'operator', 'value'].includes(key)) problems.add(`${at}.${key}`, MESSAGES.unknownKey);
    let spec: FieldSpec | undefined;
    if (typeof raw.field !== 'string' || raw.field === '') problems.add(`${at}.field`, MESSAGES.required);
    else if (recordType) {
      spec =
        RECORD_FIELDS[recordType][raw.field] ??
        customFieldSpec(raw.field) ??
        (allowEventFields && trigger ? EVENT_FIELDS[trigger]?.[raw.field] : undefined);
      if (!spec) problems.add(`${at}.field`, `Unknown field "${raw.field}" for a ${recordType}.`);
    }
    let operator: ConditionOperator | undefined;
    if (raw.operator === undefined || raw.operator === null || raw.operator === '') problems.add(`${at}.operator`, MESSAGES.required);
    else if (typeof raw.operator !== 'string' || !(CONDITION_OPERATORS as readonly string[]).includes(raw.operator))
      problems.add(`${at}.operator`, MESSAGES.choice(raw.operator));
    else operator = raw.operator as ConditionOperator;
    if (operator && spec) checkConditionValue(operator, spec, raw.value, `${at}.value`, problems);
    if (typeof raw.field === 'string' && operator) {
      const condition: Condition = { field: raw.field, operator };
      if (raw.value !== undefined && raw.value !== null && operator !== 'is_empty' && operator !== 'is_not_empty')
        condition.value = raw.value as JsonValue;
      out.push(condition);
    }
  });
  return out;
}

/**
 * `customFields.<key>`: a workspace's custom field, whose definition lives in records; any key of
 * the right shape is accepted here (a key the workspace lacks never holds a value: is_empty holds).
 */
function customFieldSpec(field: string): FieldSpec | undefined {
  if (!field.startsWith(CUSTOM_FIELDS_PREFIX)) return undefined;
  return CUSTOM_FIELD_KEY_PATTERN.test(field.slice(CUSTOM_FIELDS_PREFIX.length)) ? { kind: 'any' } : undefined;
}

function checkScalarFor(spec: FieldSpec, value: unknown, path: string, problems: FieldErrorList): void {
  if (!isScalar(value)) {
    problems.add(path, 'Expected a string, number or boolean.');
    return;
  }
  if (spec.kind === 'number' && typeof value !== 'number') problems.add(path, 'A valid number is required.');
  else if (spec.kind === 'boolean' && typeof value !== 'boolean') problems.add(path, 'Must be true or false.');
  else if (spec.values && !spec.values.includes(String(value))) problems.add(path, MESSAGES.choice(value));
}

function checkConditionValue(operator: ConditionOperator, spec: FieldSpec, value: unknown, path: string, problems: FieldErrorList): void {
  switch (operator) {
    case 'is_empty':
    case 'is_not_empty':
      if (value !== undefined && value !== null) problems.add(path, `No value is compared by ${operator}; leave it out.`);
      return;
    case 'eq':
    case 'neq':
      if (value === undefined || value === null)
        problems.add(path, `${MESSAGES.required} Use is_empty or is_not_empty to test for no value.`);
      else checkScalarFor(spec, value, path, problems);
      return;
    case 'in':
    case 'not_in':
      if (!Array.isArray(value) || value.length === 0) problems.add(path, 'Expected a non-empty list of values.');
      else value.forEach((item, index) => checkScalarFor(spec, item, `${path}.${index}`, problems));
      return;
    case 'contains':
      if (spec.kind !== 'string' && spec.kind !== 'list' && spec.kind !== 'any')
        problems.add(path, 'contains compares text or list fields only.');
      else if (typeof value !== 'string' || value === '') problems.add(path, 'Expected non-empty text.');
      return;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (spec.kind === 'any') {
        const numberOrDate = (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && ISO_DATE.test(value));
        if (!numberOrDate) problems.add(path, 'Expected a number or an ISO 8601 date or timestamp.');
      } else if (spec.kind === 'number') {
        if (typeof value !== 'number' || !Number.isFinite(value)) problems.add(path, 'A valid number is required.');
      } else if (spec.kind === 'date') {
        if (typeof value !== 'string' || !ISO_DATE.test(value)) problems.add(path, 'Expected an ISO 8601 date or timestamp.');
      } else problems.add(path, `${operator} compares number or date fields only.`);
      return;
    default: {
      const unreachable: never = operator;
      throw new Error(`Unknown operator ${String(unreachable)}`);
    }
  }
}

function checkSteps(value: unknown, recordType: RecordType | undefined, problems: FieldErrorList): Step[] {
  if (value === undefined || value === null) {
    problems.add('steps', MESSAGES.required);
    return [];
  }
  if (!Array.isArray(value)) {
    problems.add('steps', 'Expected a list of steps.');
    return [];
  }
  if (value.length === 0) {
    problems.add('steps', 'A rule needs at least one step.');
    return [];
  }
  if (value.length > LIMITS.steps) problems.add('steps', `Ensure this list has no more than ${LIMITS.steps} steps.`);
  const steps: Step[] = [];
  const orders: number[] = [];
  value.forEach((raw, index) => {
    const at = `steps.${index}`;
    if (!isObject(raw)) {
      problems.add(at, 'Expected a step object with type, order and config.');
      return;
    }
    for (const key of Object.keys(raw))
      if (!['type', 'order', 'config', 'label'].includes(key)) problems.add(`${at}.${key}`, MESSAGES.unknownKey);
    let type: Step['type'] | undefined;
    if (raw.type === undefined || raw.type === null || raw.type === '') problems.add(`${at}.type`, MESSAGES.required);
    else if (typeof raw.type !== 'string' || !(STEP_TYPES as readonly string[]).includes(raw.type))
      problems.add(`${at}.type`, MESSAGES.choice(raw.type));
    else type = raw.type as Step['type'];
    if (raw.order === undefined || raw.order === null) problems.add(`${at}.order`, MESSAGES.required);
    else if (!isInteger(raw.order) || raw.order < 1) problems.add(`${at}.order`, 'Expected a whole number from 1.');
    else orders.push(raw.order);
    if (raw.label !== undefined && raw.label !== null && (typeof raw.label !== 'string' || characterCount(raw.label) > LIMITS.name)) {
      problems.add(`${at}.label`, `Expected text of at most ${LIMITS.name} characters.`);
    }
    if (raw.config === undefined || raw.config === null) {
      problems.add(`${at}.config`, MESSAGES.required);
      return;
    }
    if (!isObject(raw.config)) {
      problems.add(`${at}.config`, 'Expected an object.');
      return;
    }
    if (!type) return;
    const config = checkStepConfig(type, raw.config, `${at}.config`, recordType, problems);
    if (config && isInteger(raw.order)) {
      const step = { type, order: raw.order, config, ...(typeof raw.label === 'string' && raw.label ? { label: raw.label } : {}) } as Step;
      steps.push(step);
    }
  });
  const sorted = [...orders].sort((a, b) => a - b);
  if (orders.length === value.length && sorted.some((order, index) => order !== index + 1)) {
    problems.add('steps', `Step orders must be 1 to ${value.length} without gaps or repeats (got ${orders.join(', ')}).`);
  }
  return steps;
}

/** What must still be filled in before a valid rule may run: an assign_user step with no users. */
export function readinessProblems(definition: RuleDefinition): FieldErrors {
  const fields: FieldErrors = {};
  definition.steps.forEach((step, index) => {
    if (step.type === 'assign_user' && step.config.userIds.length === 0) {
      fields[`steps.${index}.config.userIds`] = ['Choose at least one user to assign before activating the rule.'];
    }
  });
  return fields;
}
