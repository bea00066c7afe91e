/** What an account accepts on create and update. */
import type { FieldErrors } from '@crm/observability';
import { ACCOUNT_FIELDS } from '@crm/vocabulary';
import { fieldTableOf, readOnlyFieldsOf, withCreatedValues } from './built-in-rules';
import { checkFields, FieldErrorList, type Body, type KnownReferences } from './field-rules';
import type { AccountDocument } from './model';
import { accountSearchText, changesSearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const ACCOUNT_RULES = fieldTableOf(ACCOUNT_FIELDS, 'account');

const READ_ONLY = readOnlyFieldsOf(ACCOUNT_FIELDS);

export interface AccountInput {
  body: Body;
  references: KnownReferences;
  earlierErrors?: FieldErrors;
}

export function newAccount(input: AccountInput, id: string, workspaceId: string, now: string): AccountDocument {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, ACCOUNT_RULES, READ_ONLY, input.references, errors, 'create');
  errors.throwIfAny();
  const account = {
    ...accountDocument(v, id, workspaceId, now),
    ...newCustomFields(v, workspaceId, 'account', input.references.customFields),
  };
  account.searchText = accountSearchText(account, searchableValues(account.customFields, input.references.customFields));
  return account;
}

/** An account from already-checked values (also used by lead conversion). */
export function accountDocument(v: Record<string, unknown>, id: string, workspaceId: string, now: string): AccountDocument {
  const account = withCreatedValues<AccountDocument>(
    { id, workspaceId, name: v.name as string, searchText: '', customFields: {}, createdAt: now, updatedAt: now },
    ACCOUNT_FIELDS,
    v,
  );
  account.searchText = accountSearchText(account);
  return account;
}

export function accountChanges(current: AccountDocument, input: AccountInput, now: string): Partial<AccountDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, ACCOUNT_RULES, READ_ONLY, input.references, errors, 'update');
  errors.throwIfAny();
  const changes: Partial<AccountDocument> = {
    ...(v as Partial<AccountDocument>),
    ...customValueChanges(current, v, 'account', input.references.customFields),
    updatedAt: now,
  };
  if (changesSearchText(ACCOUNT_FIELDS, changes)) {
    const next = { ...current, ...changes };
    changes.searchText = accountSearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
