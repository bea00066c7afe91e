/**
 * Lead conversion as the contract decides it: every option is optional; accountName defaults to
 * the lead's company, opportunityName to "<account name> opportunity", opportunityStage to
 * prospecting; an opportunity needs an account to attach to. The new contact copies the lead's
 * name, email, phone, owner and notes. Each new record takes the lead's custom values of the fields
 * its kind defines with the same key and type (as Salesforce maps lead fields), and its kind's
 * checks hold for them: a value its field cannot hold, or a required field left empty, refuses the
 * conversion. This module only plans the records; the service writes them (with the lead's
 * conditional update) in one commit.
 */
import { DomainError, type FieldErrors } from '@crm/observability';
import { CONTACT_FIELDS, type CustomFieldDefinition, type CustomFieldKind, apiTimestamp } from '@crm/vocabulary';
import { accountDocument } from './account-rules';
import { withCreatedValues } from './built-in-rules';
import { FieldErrorList, LIMITS, MESSAGES, type Body } from './field-rules';
import { ID_PREFIX, type IdGenerator } from './ids';
import { OPPORTUNITY_STAGES, type AccountDocument, type ContactDocument, type LeadDocument, type OpportunityDocument } from './model';
import { carriedValues, searchableValues, uniqueClaims, type CustomFieldValues } from './custom-field-values';
import { opportunityDocument } from './opportunity-rules';
import { accountSearchText, contactSearchText, opportunitySearchText } from './search-text';

export const ALREADY_CONVERTED = 'Lead is already converted.';

export const CONVERSION_FIELDS = [
  'createAccount',
  'accountName',
  'createOpportunity',
  'opportunityName',
  'opportunityValue',
  'opportunityStage',
] as const;

export interface ConversionPlan {
  leadChange: Pick<LeadDocument, 'status' | 'convertedAt' | 'convertedContactId' | 'updatedAt'>;
  contact: ContactDocument;
  account: AccountDocument | null;
  opportunity: OpportunityDocument | null;
}

/** Each kind's custom field definitions in the lead's workspace. */
export type ConversionFields = Record<CustomFieldKind, readonly CustomFieldDefinition[]>;

/** The conversion's options as the body gives them, checked; the lead's company names the account by default. */
interface ConversionOptions {
  createAccount: boolean;
  createOpportunity: boolean;
  accountName: string | undefined;
  opportunityName: string | undefined;
  opportunityValue: number;
  opportunityStage: OpportunityDocument['stage'];
}

export function planConversion(
  lead: LeadDocument,
  body: Body,
  fields: ConversionFields,
  ids: IdGenerator,
  now: Date,
  earlierErrors?: FieldErrors,
): ConversionPlan {
  if (lead.status === 'converted') throw DomainError.invalid(ALREADY_CONVERTED);
  const errors = new FieldErrorList();
  errors.merge(earlierErrors);
  const options = conversionOptions(lead, body, errors);
  const { createAccount, createOpportunity } = options;
  const carry = (kind: 'contact' | 'account' | 'opportunity'): CustomFieldValues =>
    carriedValues({ values: lead.customFields, definitions: fields.lead }, { kind, definitions: fields[kind] }, errors);
  const contactValues = carry('contact');
  const accountValues = createAccount ? carry('account') : {};
  const opportunityValues = createAccount && createOpportunity ? carry('opportunity') : {};
  errors.throwIfAny();

  const at = apiTimestamp(now);
  const contact = convertedContact(lead, contactValues, fields.contact, ids, at);
  const account =
    createAccount && options.accountName ? convertedAccount(lead, options.accountName, accountValues, fields.account, ids, at) : null;
  if (account) contact.accountId = account.id;
  const opportunity =
    createOpportunity && account
      ? convertedOpportunity(lead, options, account, contact, opportunityValues, fields.opportunity, ids, now)
      : null;
  return {
    leadChange: { status: 'converted', convertedAt: at, convertedContactId: contact.id, updatedAt: at },
    contact,
    account,
    opportunity,
  };
}

/** Reads the body's options; what is wrong goes to `errors`, and the option keeps its default. */
function conversionOptions(lead: LeadDocument, body: Body, errors: FieldErrorList): ConversionOptions {
  for (const field of Object.keys(body)) {
    if (!(CONVERSION_FIELDS as readonly string[]).includes(field)) errors.add(field, MESSAGES.unknown);
  }
  const flag = (field: string): boolean => {
    const value = body[field];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') {
      errors.add(field, MESSAGES.boolean);
      return false;
    }
    return value;
  };
  const text = (field: string): string | undefined => {
    const value = body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') {
      errors.add(field, MESSAGES.string);
      return undefined;
    }
    const trimmed = value.trim();
    if (trimmed.length > LIMITS.name) {
      errors.add(field, MESSAGES.maxLength(LIMITS.name));
      return undefined;
    }
    return trimmed.length > 0 ? trimmed : undefined;
  };
  const options: ConversionOptions = {
    createAccount: flag('createAccount'),
    createOpportunity: flag('createOpportunity'),
    accountName: text('accountName') ?? (lead.company.trim() || undefined),
    opportunityName: text('opportunityName'),
    opportunityValue: 0,
    opportunityStage: 'prospecting',
  };
  if (body.opportunityValue !== undefined && body.opportunityValue !== null) {
    const value = body.opportunityValue;
    if (typeof value !== 'number' || !Number.isFinite(value)) errors.add('opportunityValue', MESSAGES.number);
    else if (value < 0) errors.add('opportunityValue', MESSAGES.min(0));
    else options.opportunityValue = value;
  }
  if (body.opportunityStage !== undefined && body.opportunityStage !== null) {
    const stage = body.opportunityStage;
    if (typeof stage !== 'string' || !(OPPORTUNITY_STAGES as readonly string[]).includes(stage)) {
      errors.add('opportunityStage', MESSAGES.choice(typeof stage === 'string' ? stage : JSON.stringify(stage)));
    } else options.opportunityStage = stage as OpportunityDocument['stage'];
  }
  if (options.createAccount && !options.accountName && !errors.errors.accountName) {
    errors.add('accountName', 'This field is required when the lead has no company.');
  }
  if (options.createOpportunity && !options.createAccount) {
    errors.add('createOpportunity', 'An opportunity needs an account: set createAccount to true.');
  }
  return options;
}

/** The new contact: the lead's name, email, phone, owner and notes, with the custom values carried. */
function convertedContact(
  lead: LeadDocument,
  values: CustomFieldValues,
  definitions: readonly CustomFieldDefinition[],
  ids: IdGenerator,
  at: string,
): ContactDocument {
  return withCreatedValues<ContactDocument>(
    {
      id: ids(ID_PREFIX.contact),
      workspaceId: lead.workspaceId,
      firstName: lead.firstName,
      lastName: lead.lastName,
      fullName: lead.fullName,
      email: lead.email,
      emailKey: lead.email.toLowerCase(),
      searchText: contactSearchText(lead, searchableValues(values, definitions)),
      phone: lead.phone,
      assignedTo: lead.assignedTo,
      emailOptOut: lead.emailOptOut,
      emailBounced: lead.emailBounced,
      notes: lead.notes,
      source: lead.source || null,
      importJobId: null,
      customFields: values,
      uniqueClaims: uniqueClaims(lead.workspaceId, 'contact', values, definitions),
      createdAt: at,
      updatedAt: at,
    },
    CONTACT_FIELDS,
    {},
  );
}

function convertedAccount(
  lead: LeadDocument,
  name: string,
  values: CustomFieldValues,
  definitions: readonly CustomFieldDefinition[],
  ids: IdGenerator,
  at: string,
): AccountDocument {
  const account = accountDocument({ name, assignedTo: lead.assignedTo }, ids(ID_PREFIX.account), lead.workspaceId, at);
  account.customFields = values;
  account.uniqueClaims = uniqueClaims(lead.workspaceId, 'account', values, definitions);
  account.searchText = accountSearchText(account, searchableValues(values, definitions));
  return account;
}

/** The new opportunity on the new account, with the new contact; named "<account name> opportunity" unless the body names it. */
function convertedOpportunity(
  lead: LeadDocument,
  options: ConversionOptions,
  account: AccountDocument,
  contact: ContactDocument,
  values: CustomFieldValues,
  definitions: readonly CustomFieldDefinition[],
  ids: IdGenerator,
  now: Date,
): OpportunityDocument {
  const opportunity = opportunityDocument(
    {
      name: (options.opportunityName ?? `${account.name} opportunity`).slice(0, LIMITS.name),
      accountId: account.id,
      value: options.opportunityValue,
      stage: options.opportunityStage,
      assignedTo: lead.assignedTo,
      source: lead.source,
      contactIds: [contact.id],
    },
    ids(ID_PREFIX.opportunity),
    lead.workspaceId,
    now,
  );
  opportunity.customFields = values;
  opportunity.uniqueClaims = uniqueClaims(lead.workspaceId, 'opportunity', values, definitions);
  opportunity.searchText = opportunitySearchText(opportunity, searchableValues(values, definitions));
  return opportunity;
}
