/** What a contact accepts on create and update, and how a valid body becomes a stored contact. */
import { CONTACT_STAGES, type ContactDocument } from './model';
import { checkFields, FieldErrorList, fullName, LIMITS, MESSAGES, type Body, type FieldTable, type KnownReferences } from './field-rules';
import type { FieldErrors } from '@crm/observability';
import { contactSearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const CONTACT_FIELDS: FieldTable = {
  externalId: { kind: 'externalId', nullable: true },
  firstName: { kind: 'text', max: LIMITS.name },
  lastName: { kind: 'text', max: LIMITS.name },
  email: { kind: 'email', required: true },
  phone: { kind: 'text', max: LIMITS.shortText },
  title: { kind: 'text', max: LIMITS.shortText },
  stage: { kind: 'choice', values: CONTACT_STAGES },
  accountId: { kind: 'reference', target: 'account', nullable: true },
  assignedTo: { kind: 'reference', target: 'user', nullable: true },
  tags: { kind: 'tags' },
  emailOptOut: { kind: 'boolean' },
  emailBounced: { kind: 'boolean' },
  notes: { kind: 'text', max: LIMITS.longText },
  customFields: { kind: 'customFields', recordKind: 'contact' },
};

/** Fields of the representation a client may send back; ignored rather than refused. */
export const CONTACT_READ_ONLY = ['id', 'accountName', 'assignedToName', 'source', 'createdAt', 'updatedAt'];

export interface ContactInput {
  body: Body;
  references: KnownReferences;
  /** Problems the caller already found (the gateway: wrong JSON types, unknown fields). */
  earlierErrors?: FieldErrors;
}

export function newContact(input: ContactInput, id: string, workspaceId: string, now: string): ContactDocument {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, CONTACT_FIELDS, CONTACT_READ_ONLY, input.references, errors, 'create');
  const firstName = (v.firstName as string | undefined) ?? '';
  const lastName = (v.lastName as string | undefined) ?? '';
  if (!firstName && !lastName && !errors.errors.firstName && !errors.errors.lastName) {
    errors.add('firstName', 'At least one of firstName and lastName is required.');
  }
  errors.throwIfAny();
  const email = v.email as string;
  const contact: ContactDocument = {
    id,
    workspaceId,
    externalId: (v.externalId as string | null | undefined) ?? null,
    firstName,
    lastName,
    fullName: fullName(firstName, lastName),
    email,
    emailKey: email.toLowerCase(),
    searchText: '',
    phone: (v.phone as string | undefined) ?? '',
    title: (v.title as string | undefined) ?? '',
    stage: (v.stage as ContactDocument['stage'] | undefined) ?? 'new',
    accountId: (v.accountId as string | null | undefined) ?? null,
    assignedTo: (v.assignedTo as string | null | undefined) ?? null,
    tags: (v.tags as string[] | undefined) ?? [],
    emailOptOut: (v.emailOptOut as boolean | undefined) ?? false,
    emailBounced: (v.emailBounced as boolean | undefined) ?? false,
    notes: (v.notes as string | undefined) ?? '',
    ...newCustomFields(v, workspaceId, 'contact', input.references.customFields),
    source: null,
    importJobId: null,
    createdAt: now,
    updatedAt: now,
  };
  contact.searchText = contactSearchText(contact, searchableValues(contact.customFields, input.references.customFields));
  return contact;
}

/** The changed fields of a contact after a PATCH; throws the 422 with every failing field. */
export function contactChanges(current: ContactDocument, input: ContactInput, now: string): Partial<ContactDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, CONTACT_FIELDS, CONTACT_READ_ONLY, input.references, errors, 'update');
  const firstName = 'firstName' in v ? (v.firstName as string) : current.firstName;
  const lastName = 'lastName' in v ? (v.lastName as string) : current.lastName;
  if (('firstName' in v || 'lastName' in v) && !firstName && !lastName) {
    errors.add('firstName', 'At least one of firstName and lastName is required.');
  }
  if ('email' in input.body && input.body.email === '') errors.add('email', MESSAGES.blank);
  errors.throwIfAny();
  const changes: Partial<ContactDocument> = {
    ...(v as Partial<ContactDocument>),
    ...customValueChanges(current, v, 'contact', input.references.customFields),
    updatedAt: now,
  };
  if ('firstName' in v || 'lastName' in v) changes.fullName = fullName(firstName, lastName);
  if (typeof v.email === 'string') changes.emailKey = v.email.toLowerCase();
  // An imported contact whose address changes no longer holds the import's claim on the old one.
  if (current.importEmailKey && changes.emailKey !== undefined && changes.emailKey !== current.importEmailKey)
    changes.importEmailKey = null;
  if ('fullName' in changes || 'email' in changes || 'phone' in changes || 'customFields' in changes) {
    const next = { ...current, ...changes };
    changes.searchText = contactSearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
