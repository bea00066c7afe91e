/** What a contact accepts on create and update, and how a valid body becomes a stored contact. */
import { CONTACT_FIELDS } from '@crm/vocabulary';
import type { ContactDocument } from './model';
import { fieldTableOf, readOnlyFieldsOf, withCreatedValues } from './built-in-rules';
import { checkFields, FieldErrorList, fullName, MESSAGES, type Body, type KnownReferences } from './field-rules';
import type { FieldErrors } from '@crm/observability';
import { changesSearchText, contactSearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const CONTACT_RULES = fieldTableOf(CONTACT_FIELDS, 'contact');

const READ_ONLY = readOnlyFieldsOf(CONTACT_FIELDS);

export interface ContactInput {
  body: Body;
  references: KnownReferences;
  /** Problems the caller already found (the gateway: wrong JSON types, unknown fields). */
  earlierErrors?: FieldErrors;
}

export function newContact(input: ContactInput, id: string, workspaceId: string, now: string): ContactDocument {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, CONTACT_RULES, READ_ONLY, input.references, errors, 'create');
  const firstName = (v.firstName as string | undefined) ?? '';
  const lastName = (v.lastName as string | undefined) ?? '';
  if (!firstName && !lastName && !errors.errors.firstName && !errors.errors.lastName) {
    errors.add('firstName', 'At least one of firstName and lastName is required.');
  }
  errors.throwIfAny();
  const email = v.email as string;
  const contact = withCreatedValues<ContactDocument>(
    {
      id,
      workspaceId,
      firstName,
      lastName,
      fullName: fullName(firstName, lastName),
      email,
      emailKey: email.toLowerCase(),
      searchText: '',
      ...newCustomFields(v, workspaceId, 'contact', input.references.customFields),
      source: null,
      importJobId: null,
      createdAt: now,
      updatedAt: now,
    },
    CONTACT_FIELDS,
    v,
  );
  contact.searchText = contactSearchText(contact, searchableValues(contact.customFields, input.references.customFields));
  return contact;
}

/** The changed fields of a contact after a PATCH; throws the 422 with every failing field. */
export function contactChanges(current: ContactDocument, input: ContactInput, now: string): Partial<ContactDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, CONTACT_RULES, READ_ONLY, input.references, errors, 'update');
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
  if (changesSearchText(CONTACT_FIELDS, changes)) {
    const next = { ...current, ...changes };
    changes.searchText = contactSearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
