/**
 * Proto messages ↔ the service's bodies and views. Presence comes from the request's field mask
 * and the record message's proto3 `optional` fields; a null goes out as an unset optional field.
 */
import type { AuditEntryView } from '../application/audit-log';
import type { AuditFilters } from '../store/audit-repository';
import { maskedFields, setFields, type recordsV1 } from '@crm/grpc';
import {
  ACCOUNT_FIELDS,
  AGGREGATE_METRIC_OPS,
  CONTACT_FIELDS,
  LEAD_FIELDS,
  OPPORTUNITY_FIELDS,
  type BuiltInFields,
  type CustomFieldDefinition,
} from '@crm/vocabulary';
import type { AggregateMeasures, AggregateView } from '../application/record-aggregates';
import type { ActivityDocument, SourceDocument, TaskDocument } from '../domain/model';
import { versionOf } from '../domain/record-version';
import { fieldIdentifier, perFieldList } from '../domain/field-list-code';
import type { AccountView, ContactView, LeadView, OpportunityView, WriteInput } from '../application/views';

type Message = Record<string, unknown>;

function isEmptyValue(value: unknown): boolean {
  return (
    value === undefined || value === null || value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0)
  );
}

/**
 * The body a write request describes: the masked fields' values, JSON null for a masked field the
 * message leaves unset (or an empty list: the service reads null lists as empty), and the
 * gateway's translation problems as earlier errors. With no mask on a create, every non-empty
 * field the message carries counts as sent; with none on an update, nothing does.
 */
export function writeInput(
  message: object | null | undefined,
  mask: recordsV1.FieldMask | null | undefined,
  invalid: recordsV1.FieldError[],
  mode: 'create' | 'update',
): WriteInput {
  const source = (message ?? {}) as Message;
  const names = maskedFields(mask) ?? (mode === 'update' ? [] : setFields(source).filter((key) => !isEmptyValue(source[key])));
  return bodyOf(source, names, invalid);
}

/** ConvertLead's options: every `optional` one set is one the client sent. */
export function optionsInput(options: object, invalid: recordsV1.FieldError[]): WriteInput {
  return bodyOf(options as Message, setFields(options), invalid);
}

function bodyOf(source: Message, names: string[], invalid: recordsV1.FieldError[]): WriteInput {
  const body: Record<string, unknown> = {};
  for (const name of names) {
    const value = Object.prototype.hasOwnProperty.call(source, name) ? source[name] : undefined;
    body[name] = value === undefined || value === null ? null : normalise(value);
  }
  // Custom field values travel as JSON text (the proto carries them generically).
  if (typeof body.customFields === 'string') body.customFields = customFieldsOf(body.customFields);
  const earlierErrors: Record<string, string[]> = {};
  for (const problem of invalid) {
    (earlierErrors[problem.field] ??= []).push(...(problem.messages.length > 0 ? problem.messages : ['Invalid value.']));
    delete body[problem.field];
  }
  return { body, earlierErrors };
}

/** The values object of a `custom_fields` text; anything but an object is left for the rules to refuse. */
function customFieldsOf(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A view's custom values as the record message carries them. */
function customFieldsText(view: { customFields?: object }): string {
  return JSON.stringify(view.customFields ?? {});
}

/** Copies a nested message into a plain object (proto-loader objects are plain already). */
function normalise(value: unknown): unknown {
  if (Array.isArray(value)) return [...value];
  if (value && typeof value === 'object') return { ...(value as Message) };
  return value;
}

type MessageBuilder = (values: Message, version: number, customFields: (view: object) => string) => Message;

/**
 * A record message of a kind described as data: its version and each built-in field's value (null
 * goes out unset), built by one object literal.
 */
const messageBuilderOf = perFieldList<MessageBuilder>(['values', 'version', 'customFields'], (fields) => {
  const entries = Object.entries(fields).map(([name, field]) => {
    const key = fieldIdentifier(name);
    return field.type === 'customFields' ? `${key}: customFields(values)` : `${key}: values.${key} ?? undefined`;
  });
  return `return { version, ${entries.join(', ')} };`;
});

function builtInMessage(fields: BuiltInFields, view: object, version: number): Message {
  return messageBuilderOf(fields)(view as Message, version, customFieldsText);
}

export function contactMessage(view: ContactView): recordsV1.Contact {
  return builtInMessage(CONTACT_FIELDS, view, versionOf(view)) as unknown as recordsV1.Contact;
}

export function leadMessage(view: LeadView): recordsV1.Lead {
  return builtInMessage(LEAD_FIELDS, view, versionOf(view)) as unknown as recordsV1.Lead;
}

export function accountMessage(view: AccountView): recordsV1.Account {
  return builtInMessage(ACCOUNT_FIELDS, view, versionOf(view)) as unknown as recordsV1.Account;
}

export function opportunityMessage(view: OpportunityView): recordsV1.Opportunity {
  return builtInMessage(OPPORTUNITY_FIELDS, view, versionOf(view)) as unknown as recordsV1.Opportunity;
}

export function sourceMessage(source: SourceDocument): recordsV1.Source {
  return { uid: source.id, name: source.name, createdAt: source.createdAt };
}

export function taskMessage(task: TaskDocument): recordsV1.Task {
  return {
    id: task.id,
    name: task.name,
    dueDate: task.dueDate ?? undefined,
    assignedTo: task.assignedTo ?? undefined,
    relatedTo: task.relatedTo,
    status: task.status,
    createdAt: task.createdAt,
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

function aggregateGroupMessage(measures: AggregateMeasures, key: Record<string, unknown> = {}): recordsV1.AggregateGroup {
  return {
    key: Object.entries(key).map(([name, value]) => ({
      name,
      type: typeof value === 'string' ? 'text' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : '',
      text: typeof value === 'string' ? value : '',
      number: typeof value === 'number' ? value : 0,
      flag: value === true,
    })),
    ...(measures.count === undefined ? {} : { count: measures.count }),
    metrics: AGGREGATE_METRIC_OPS.flatMap((op) =>
      Object.entries(measures[op] ?? {}).map(([field, value]) => ({ op, field, ...(value === null ? {} : { value }) })),
    ),
  };
}

export function aggregateMessage(view: AggregateView): recordsV1.AggregateRecordsResponse {
  return {
    groups: view.groups.map(({ key, ...measures }) => aggregateGroupMessage(measures, key)),
    total: aggregateGroupMessage(view.total),
  };
}

export function auditEntryMessage(entry: AuditEntryView): recordsV1.AuditEntry {
  return {
    id: entry.id,
    occurredAt: entry.occurredAt,
    action: entry.action,
    recordKind: entry.recordKind,
    recordId: entry.recordId,
    actorType: entry.actor.type,
    actorId: entry.actor.id,
    actorName: entry.actor.name,
    requestId: entry.requestId,
    changesJson: JSON.stringify(entry.changes),
  };
}

/** The list's filters; empty strings are no filter. */
export function auditFiltersOf(r: recordsV1.ListAuditEntriesRequest): AuditFilters {
  const filters: AuditFilters = {};
  for (const field of ['recordId', 'recordKind', 'actorType', 'actorId', 'action', 'requestId', 'after', 'before'] as const)
    if (r[field]) filters[field] = r[field];
  return filters;
}

export function customFieldMessage(definition: CustomFieldDefinition): recordsV1.CustomField {
  return { ...definition };
}
