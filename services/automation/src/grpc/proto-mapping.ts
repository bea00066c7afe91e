/** Translation between the proto messages and the domain's documents; nothing else. */
import { apiTimestamp } from '@crm/vocabulary';
import { DomainError, type FieldErrors } from '@crm/observability';
import type { automationV1 } from '@crm/grpc';
import type { TemplateView } from '../application/template-service';
import type { Condition, EmailDocument, EnrollmentDocument, NotificationDocument, RuleDocument, Step } from '../domain/model';
import type { RuleInput } from '../domain/rule-validation';

function parseJson(text: string, path: string, problems: FieldErrors): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    problems[path] = ['Not valid JSON.'];
    return undefined;
  }
}

/** The client's conditions and steps with their JSON parsed, still unchecked (validation follows). */
export function ruleInput(rule: automationV1.Rule | null, fields: string[]): RuleInput {
  const problems: FieldErrors = {};
  const source = rule ?? ({} as Partial<automationV1.Rule>);
  const conditions = (list: automationV1.Condition[] | undefined, path: string) =>
    (list ?? []).map((c, index) => {
      const out: Record<string, unknown> = { field: c.field, operator: c.operator };
      const value = parseJson(c.valueJson, `${path}.${index}.value`, problems);
      if (value !== undefined) out.value = value;
      return out;
    });
  const input: RuleInput = {};
  const has = (field: string) => fields.length === 0 || fields.includes(field);
  if (has('name') && (fields.length > 0 || source.name)) input.name = source.name;
  if (has('trigger') && (fields.length > 0 || source.trigger)) input.trigger = source.trigger;
  if (has('triggerConditions')) input.triggerConditions = conditions(source.triggerConditions, 'triggerConditions');
  if (has('exitConditions')) input.exitConditions = conditions(source.exitConditions, 'exitConditions');
  if (has('steps') && (fields.length > 0 || (source.steps ?? []).length > 0)) {
    input.steps = (source.steps ?? []).map((s, index) => {
      const out: Record<string, unknown> = {
        type: s.type,
        order: s.order,
        config: parseJson(s.configJson, `steps.${index}.config`, problems) ?? null,
      };
      if (s.label) out.label = s.label;
      return out;
    });
  }
  if (Object.keys(problems).length > 0) throw DomainError.validation(problems);
  return input;
}

export function conditionMessage(condition: Condition): automationV1.Condition {
  return {
    field: condition.field,
    operator: condition.operator,
    valueJson: condition.value === undefined ? '' : JSON.stringify(condition.value),
  };
}

export function stepMessage(step: Step): automationV1.Step {
  return { type: step.type, order: step.order, configJson: JSON.stringify(step.config), label: step.label ?? '' };
}

export function ruleMessage(rule: RuleDocument): automationV1.Rule {
  return {
    id: rule.id,
    name: rule.name,
    trigger: rule.trigger,
    triggerConditions: rule.triggerConditions.map(conditionMessage),
    exitConditions: rule.exitConditions.map(conditionMessage),
    steps: rule.steps.map(stepMessage),
    isActive: rule.isActive,
    stepCount: rule.steps.length,
    enrolledCount: rule.enrolledCount,
    installedFromTemplateId: rule.installedFromTemplateId ?? '',
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
  };
}

export function templateMessage(template: TemplateView): automationV1.Template {
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    category: template.category,
    trigger: template.trigger,
    triggerConditions: template.triggerConditions.map(conditionMessage),
    exitConditions: template.exitConditions.map(conditionMessage),
    steps: template.steps.map(stepMessage),
    stepCount: template.steps.length,
    isBuiltIn: template.isBuiltIn,
    installCount: template.installCount,
    createdAt: template.createdAt,
  };
}

export function logMessage(log: EnrollmentDocument): automationV1.ExecutionLog {
  return {
    id: log.id,
    ruleId: log.ruleId,
    enrolledRecordType: log.enrolledRecordType,
    enrolledRecordId: log.enrolledRecordId,
    status: log.status,
    completedSteps: log.completedSteps,
    totalSteps: log.totalSteps,
    startedAt: log.startedAt,
    completedAt: log.completedAt ?? '',
    reason: log.reason ?? '',
    stepResults: log.stepResults.map((r) => ({
      order: r.order,
      type: r.type,
      status: r.status,
      detail: r.detail,
      finishedAt: r.finishedAt,
    })),
    nextStepDueAt: log.status === 'in_progress' && log.dueAt !== null ? apiTimestamp(log.dueAt) : '',
    exit: log.exit ? { condition: conditionMessage(log.exit.condition), metAt: log.exit.metAt } : null,
  };
}

export function emailMessage(email: EmailDocument): automationV1.Email {
  return {
    id: email.id,
    to: email.to,
    subject: email.subject,
    body: email.body,
    mode: email.mode,
    status: email.status,
    relatedTo: email.relatedTo,
    createdAt: email.createdAt,
    ruleId: email.ruleId,
    executionLogId: email.executionLogId,
  };
}

export function notificationMessage(notification: NotificationDocument): automationV1.Notification {
  return {
    id: notification.id,
    recipient: notification.recipient,
    message: notification.message,
    relatedTo: notification.relatedTo,
    createdAt: notification.createdAt,
  };
}
