/** What a lead accepts on create and update. Only conversion makes a lead `converted`. */
import type { FieldErrors } from '@crm/observability';
import { checkFields, FieldErrorList, fullName, LIMITS, MESSAGES, type Body, type FieldTable, type KnownReferences } from './field-rules';
import { LEAD_STATUSES, type LeadDocument, type LeadStatus } from './model';
import { leadSearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const LEAD_FIELDS: FieldTable = {
  externalId: { kind: 'externalId', nullable: true },
  firstName: { kind: 'text', max: LIMITS.name },
  lastName: { kind: 'text', max: LIMITS.name },
  email: { kind: 'email', required: true },
  phone: { kind: 'text', max: LIMITS.shortText },
  company: { kind: 'text', max: LIMITS.name },
  status: { kind: 'choice', values: LEAD_STATUSES },
  source: { kind: 'text', max: LIMITS.shortText },
  assignedTo: { kind: 'reference', target: 'user', nullable: true },
  leadScore: { kind: 'integer', min: 0, max: 100 },
  emailOptOut: { kind: 'boolean' },
  emailBounced: { kind: 'boolean' },
  notes: { kind: 'text', max: LIMITS.longText },
  customFields: { kind: 'customFields', recordKind: 'lead' },
};

export const LEAD_READ_ONLY = ['id', 'assignedToName', 'convertedAt', 'convertedContactId', 'createdAt', 'updatedAt'];

export const CONVERTED_ONLY_BY_CONVERSION = 'A lead becomes converted only through conversion.';

export interface LeadInput {
  body: Body;
  references: KnownReferences;
  earlierErrors?: FieldErrors;
}

function refuseConverted(v: Record<string, unknown>, errors: FieldErrorList, current?: LeadStatus): void {
  if (v.status === 'converted' && current !== 'converted') {
    errors.add('status', CONVERTED_ONLY_BY_CONVERSION);
    delete v.status;
  }
}

export function newLead(input: LeadInput, id: string, workspaceId: string, now: string): LeadDocument {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, LEAD_FIELDS, LEAD_READ_ONLY, input.references, errors, 'create');
  refuseConverted(v, errors);
  const firstName = (v.firstName as string | undefined) ?? '';
  const lastName = (v.lastName as string | undefined) ?? '';
  if (!firstName && !lastName && !errors.errors.firstName && !errors.errors.lastName) {
    errors.add('firstName', 'At least one of firstName and lastName is required.');
  }
  errors.throwIfAny();
  const lead: LeadDocument = {
    id,
    workspaceId,
    externalId: (v.externalId as string | null | undefined) ?? null,
    firstName,
    lastName,
    fullName: fullName(firstName, lastName),
    searchText: '',
    email: v.email as string,
    emailKey: (v.email as string).toLowerCase(),
    phone: (v.phone as string | undefined) ?? '',
    company: (v.company as string | undefined) ?? '',
    status: (v.status as LeadStatus | undefined) ?? 'new',
    source: (v.source as string | undefined) ?? '',
    assignedTo: (v.assignedTo as string | null | undefined) ?? null,
    leadScore: (v.leadScore as number | undefined) ?? 0,
    emailOptOut: (v.emailOptOut as boolean | undefined) ?? false,
    emailBounced: (v.emailBounced as boolean | undefined) ?? false,
    convertedAt: null,
    convertedContactId: null,
    notes: (v.notes as string | undefined) ?? '',
    ...newCustomFields(v, workspaceId, 'lead', input.references.customFields),
    createdAt: now,
    updatedAt: now,
  };
  lead.searchText = leadSearchText(lead, searchableValues(lead.customFields, input.references.customFields));
  return lead;
}

export function leadChanges(current: LeadDocument, input: LeadInput, now: string): Partial<LeadDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, LEAD_FIELDS, LEAD_READ_ONLY, input.references, errors, 'update');
  refuseConverted(v, errors, current.status);
  if (current.status === 'converted' && typeof v.status === 'string' && v.status !== 'converted') {
    // Moving a converted lead back would leave its contact and convertedAt pointing nowhere.
    errors.add('status', 'A converted lead keeps the status converted.');
  }
  const firstName = 'firstName' in v ? (v.firstName as string) : current.firstName;
  const lastName = 'lastName' in v ? (v.lastName as string) : current.lastName;
  if (('firstName' in v || 'lastName' in v) && !firstName && !lastName) {
    errors.add('firstName', 'At least one of firstName and lastName is required.');
  }
  if ('email' in input.body && input.body.email === '') errors.add('email', MESSAGES.blank);
  errors.throwIfAny();
  const changes: Partial<LeadDocument> = {
    ...(v as Partial<LeadDocument>),
    ...customValueChanges(current, v, 'lead', input.references.customFields),
    updatedAt: now,
  };
  if ('firstName' in v || 'lastName' in v) changes.fullName = fullName(firstName, lastName);
  if (typeof v.email === 'string') changes.emailKey = v.email.toLowerCase();
  // A lead that a batch upsert created by email no longer holds its claim once the address changes.
  if (current.emailClaimKey && changes.emailKey !== undefined && changes.emailKey !== current.emailClaimKey) changes.emailClaimKey = null;
  if ('fullName' in changes || 'email' in changes || 'company' in changes || 'customFields' in changes) {
    const next = { ...current, ...changes };
    changes.searchText = leadSearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
