/**
 * Proto messages ↔ the service's bodies and views. Presence comes from the request's field lists
 * (provided_fields / update_fields / clear_fields), nulls go out as `null_fields`.
 */
import type { recordsV1 } from '@crm/grpc';
import type { ActivityDocument, SourceDocument, TaskDocument } from '../domain/model';
import { versionOf } from '../domain/record-version';
import type { AccountView, ContactView, LeadView, OpportunityView, WriteInput } from '../application/views';

type Message = Record<string, unknown>;

function isEmptyValue(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0)
  );
}

/**
 * The body a write request describes: the listed fields' values, JSON null for cleared fields,
 * and the gateway's translation problems as earlier errors. With no list on a create, every
 * non-empty field counts as sent.
 */
export function writeInput(
  message: object | null | undefined,
  listed: string[],
  cleared: string[],
  invalid: recordsV1.FieldError[],
  mode: 'create' | 'update',
): WriteInput {
  const source = (message ?? {}) as Message;
  const body: Record<string, unknown> = {};
  const names =
    listed.length > 0 || mode === 'update'
      ? listed
      : Object.keys(source).filter((key) => key !== 'nullFields' && !isEmptyValue(source[key]));
  for (const name of names) {
    body[name] = Object.prototype.hasOwnProperty.call(source, name) ? normalise(source[name]) : undefined;
  }
  for (const name of cleared) body[name] = null;
  const earlierErrors: Record<string, string[]> = {};
  for (const problem of invalid) {
    (earlierErrors[problem.field] ??= []).push(...(problem.messages.length > 0 ? problem.messages : ['Invalid value.']));
    delete body[problem.field];
  }
  return { body, earlierErrors };
}

/** Copies a nested message into a plain object (proto-loader objects are plain already). */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return [...value];
  if (value && typeof value === 'object') return { ...(value as Message) };
  return value;
}

function nulls(view: Message, fields: string[]): string[] {
  return fields.filter((field) => view[field] === null || view[field] === undefined);
}

export function contactMessage(view: ContactView): recordsV1.Contact {
  return {
    id: view.id,
    firstName: view.firstName,
    lastName: view.lastName,
    email: view.email,
    phone: view.phone,
    title: view.title,
    stage: view.stage,
    accountId: view.accountId ?? '',
    accountName: view.accountName,
    assignedTo: view.assignedTo ?? '',
    assignedToName: view.assignedToName,
    tags: view.tags,
    emailOptOut: view.emailOptOut,
    emailBounced: view.emailBounced,
    notes: view.notes,
    source: view.source ?? '',
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    version: versionOf(view),
    nullFields: nulls(view as unknown as Message, ['accountId', 'assignedTo', 'source']),
  };
}

export function leadMessage(view: LeadView): recordsV1.Lead {
  return {
    id: view.id,
    firstName: view.firstName,
    lastName: view.lastName,
    email: view.email,
    phone: view.phone,
    company: view.company,
    status: view.status,
    source: view.source,
    assignedTo: view.assignedTo ?? '',
    assignedToName: view.assignedToName,
    leadScore: view.leadScore,
    emailOptOut: view.emailOptOut,
    emailBounced: view.emailBounced,
    convertedAt: view.convertedAt ?? '',
    convertedContactId: view.convertedContactId ?? '',
    notes: view.notes,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    version: versionOf(view),
    nullFields: nulls(view as unknown as Message, ['assignedTo', 'convertedAt', 'convertedContactId']),
  };
}

export function accountMessage(view: AccountView): recordsV1.Account {
  return {
    id: view.id,
    name: view.name,
    website: view.website,
    industry: view.industry,
    companySize: view.companySize,
    annualRevenue: view.annualRevenue ?? 0,
    stage: view.stage,
    phone: view.phone,
    billingAddress: view.billingAddress ? { ...view.billingAddress } : null,
    assignedTo: view.assignedTo ?? '',
    assignedToName: view.assignedToName,
    tags: view.tags,
    description: view.description,
    contactCount: view.contactCount,
    openOpportunityCount: view.openOpportunityCount,
    openCaseCount: view.openCaseCount,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    version: versionOf(view),
    nullFields: nulls(view as unknown as Message, ['annualRevenue', 'billingAddress', 'assignedTo']),
  };
}

export function opportunityMessage(view: OpportunityView): recordsV1.Opportunity {
  return {
    id: view.id,
    name: view.name,
    accountId: view.accountId ?? '',
    accountName: view.accountName,
    value: view.value,
    stage: view.stage,
    probability: view.probability,
    closeDate: view.closeDate ?? '',
    closedDate: view.closedDate ?? '',
    lossReason: view.lossReason ?? '',
    assignedTo: view.assignedTo ?? '',
    assignedToName: view.assignedToName,
    source: view.source,
    contactIds: view.contactIds,
    description: view.description,
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    version: versionOf(view),
    nullFields: nulls(view as unknown as Message, ['accountId', 'closeDate', 'closedDate', 'lossReason', 'assignedTo']),
  };
}

export function sourceMessage(source: SourceDocument): recordsV1.Source {
  return { uid: source.id, name: source.name, createdAt: source.createdAt };
}

export function taskMessage(task: TaskDocument): recordsV1.Task {
  return {
    id: task.id,
    name: task.name,
    dueDate: task.dueDate ?? '',
    assignedTo: task.assignedTo ?? '',
    relatedTo: task.relatedTo,
    status: task.status,
    createdAt: task.createdAt,
    nullFields: nulls(task as unknown as Message, ['dueDate', 'assignedTo']),
  };
}

export function activityMessage(activity: ActivityDocument): recordsV1.Activity {
  return {
    id: activity.id,
    action: activity.action,
    recordType: activity.recordType,
    recordId: activity.recordId,
    actorId: activity.actorId,
    actorType: activity.actorType,
    createdAt: activity.createdAt,
    mergedIds: activity.mergedIds ?? [],
  };
}
