/** What an account accepts on create and update. */
import type { FieldErrors } from '@crm/observability';
import { checkFields, FieldErrorList, LIMITS, type Body, type FieldTable, type KnownReferences } from './field-rules';
import { ACCOUNT_STAGES, type AccountDocument, type AccountStage, type BillingAddress } from './model';
import { accountSearchText } from './search-text';
import { customValueChanges, newCustomFields, searchableValues } from './custom-field-values';

export const ACCOUNT_FIELDS: FieldTable = {
  externalId: { kind: 'externalId', nullable: true },
  name: { kind: 'text', max: LIMITS.name, required: true },
  website: { kind: 'url' },
  industry: { kind: 'text', max: LIMITS.shortText },
  companySize: { kind: 'text', max: LIMITS.shortText },
  annualRevenue: { kind: 'number', min: 0, nullable: true },
  stage: { kind: 'choice', values: ACCOUNT_STAGES },
  phone: { kind: 'text', max: LIMITS.shortText },
  billingAddress: { kind: 'address' },
  assignedTo: { kind: 'reference', target: 'user', nullable: true },
  tags: { kind: 'tags' },
  description: { kind: 'text', max: LIMITS.longText },
  customFields: { kind: 'customFields', recordKind: 'account' },
};

export const ACCOUNT_READ_ONLY = [
  'id',
  'assignedToName',
  'contactCount',
  'openOpportunityCount',
  'openCaseCount',
  'createdAt',
  'updatedAt',
];

export interface AccountInput {
  body: Body;
  references: KnownReferences;
  earlierErrors?: FieldErrors;
}

export function newAccount(input: AccountInput, id: string, workspaceId: string, now: string): AccountDocument {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, ACCOUNT_FIELDS, ACCOUNT_READ_ONLY, input.references, errors, 'create');
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
  const account: AccountDocument = {
    id,
    workspaceId,
    externalId: (v.externalId as string | null | undefined) ?? null,
    name: v.name as string,
    searchText: '',
    website: (v.website as string | undefined) ?? '',
    industry: (v.industry as string | undefined) ?? '',
    companySize: (v.companySize as string | undefined) ?? '',
    annualRevenue: (v.annualRevenue as number | null | undefined) ?? null,
    stage: (v.stage as AccountStage | undefined) ?? 'prospect',
    phone: (v.phone as string | undefined) ?? '',
    billingAddress: (v.billingAddress as BillingAddress | null | undefined) ?? null,
    assignedTo: (v.assignedTo as string | null | undefined) ?? null,
    tags: (v.tags as string[] | undefined) ?? [],
    description: (v.description as string | undefined) ?? '',
    customFields: {},
    createdAt: now,
    updatedAt: now,
  };
  account.searchText = accountSearchText(account);
  return account;
}

export function accountChanges(current: AccountDocument, input: AccountInput, now: string): Partial<AccountDocument> {
  const errors = new FieldErrorList();
  errors.merge(input.earlierErrors);
  const v = checkFields(input.body, ACCOUNT_FIELDS, ACCOUNT_READ_ONLY, input.references, errors, 'update');
  errors.throwIfAny();
  const changes: Partial<AccountDocument> = {
    ...(v as Partial<AccountDocument>),
    ...customValueChanges(current, v, 'account', input.references.customFields),
    updatedAt: now,
  };
  if ('name' in changes || 'website' in changes || 'customFields' in changes) {
    const next = { ...current, ...changes };
    changes.searchText = accountSearchText(next, searchableValues(next.customFields, input.references.customFields));
  }
  return changes;
}
