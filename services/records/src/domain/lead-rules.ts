/** What a lead accepts on create and update. Only conversion makes a lead `converted`. */
import type { FieldErrors } from '@crm/observability';
import { LEAD_FIELDS } from '@crm/vocabulary';
import { fieldTableOf, readOnlyFieldsOf, withCreatedValues } from './built-in-rules';
import { checkFields, FieldErrorList, fullName, MESSAGES, type Body, type KnownReferences } from './field-rules';
import type { LeadDocument, LeadStatus } from './model';
import { changesSearchText, leadSearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const LEAD_RULES = fieldTableOf(LEAD_FIELDS, 'lead');

const READ_ONLY = readOnlyFieldsOf(LEAD_FIELDS);

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
  const v = checkFields(input.body, LEAD_RULES, READ_ONLY, input.references, errors, 'create');
  refuseConverted(v, errors);
  const firstName = (v.firstName as string | undefined) ?? '';
  const lastName = (v.lastName as string | undefined) ?? '';
  if (!firstName && !lastName && !errors.errors.firstName && !errors.errors.lastName) {
    errors.add('firstName', 'At least one of firstName and lastName is required.');
  }
  errors.throwIfAny();
  const lead = withCreatedValues<LeadDocument>(
    {
      id,
      workspaceId,
      firstName,
      lastName,
      fullName: fullName(firstName, lastName),
      searchText: '',
      email: v.email as string,
      emailKey: (v.email as string).toLowerCase(),
      convertedAt: null,
      convertedContactId: null,
      ...newCustomFields(v, workspaceId, 'lead', input.references.customFields),
      createdAt: now,
      updatedAt: now,
    },
    LEAD_FIELDS,
    v,
  );
  lead.searchText = leadSearchText(lead, searchableValues(lead.customFields, input.references.customFields));
  return lead;
}

export function leadChanges(current: LeadDocument, input: LeadInput, now: string): Partial<LeadDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, LEAD_RULES, READ_ONLY, input.references, errors, 'update');
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
  if (changesSearchText(LEAD_FIELDS, changes)) {
    const next = { ...current, ...changes };
    changes.searchText = leadSearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
