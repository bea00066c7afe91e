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
  const createAccount = flag('createAccount');
  const createOpportunity = flag('createOpportunity');
  const accountName = text('accountName') ?? (lead.company.trim() || undefined);
  const opportunityNameGiven = text('opportunityName');
  let opportunityValue = 0;
  if (body.opportunityValue !== undefined && body.opportunityValue !== null) {
    const value = body.opportunityValue;
    if (typeof value !== 'number' || !Number.isFinite(value)) errors.add('opportunityValue', MESSAGES.number);
    else if (value < 0) errors.add('opportunityValue', MESSAGES.min(0));
    else opportunityValue = value;
  }
  let opportunityStage: OpportunityDocument['stage'] = 'prospecting';
  if (body.opportunityStage !== undefined && body.opportunityStage !== null) {
    const stage = body.opportunityStage;
    if (typeof stage !== 'string' || !(OPPORTUNITY_STAGES as readonly string[]).includes(stage)) {
      errors.add('opportunityStage', MESSAGES.choice(typeof stage === 'string' ? stage : JSON.stringify(stage)));
    } else opportunityStage = stage as OpportunityDocument['stage'];
  }
  if (createAccount && !accountName && !errors.errors.accountName) {
    errors.add('accountName', 'This field is required when the lead has no company.');
  }
  if (createOpportunity && !createAccount) {
    errors.add('createOpportunity', 'An opportunity needs an account: set createAccount to true.');
  }
  const carry = (kind: 'contact' | 'account' | 'opportunity'): CustomFieldValues =>
    carriedValues({ values: lead.customFields, definitions: fields.lead }, { kind, definitions: fields[kind] }, errors);
  const contactValues = carry('contact');
  const accountValues = createAccount ? carry('account') : {};
  const opportunityValues = createAccount && createOpportunity ? carry('opportunity') : {};
  errors.throwIfAny();

  const at = apiTimestamp(now);
  const contact = withCreatedValues<ContactDocument>(
    {
      id: ids(ID_PREFIX.contact),
      workspaceId: lead.workspaceId,
      firstName: lead.firstName,
      lastName: lead.lastName,
      fullName: lead.fullName,
      email: lead.email,
      emailKey: lead.email.toLowerCase(),
      searchText: contactSearchText(lead, searchableValues(contactValues, fields.contact)),
      phone: lead.phone,
      assignedTo: lead.assignedTo,
      emailOptOut: lead.emailOptOut,
      emailBounced: lead.emailBounced,
      notes: lead.notes,
      source: lead.source || null,
      importJobId: null,
      customFields: contactValues,
      uniqueClaims: uniqueClaims(lead.workspaceId, 'contact', contactValues, fields.contact),
      createdAt: at,
      updatedAt: at,
    },
    CONTACT_FIELDS,
    {},
  );
  let account: AccountDocument | null = null;
  let opportunity: OpportunityDocument | null = null;
  if (createAccount && accountName) {
    account = accountDocument({ name: accountName, assignedTo: lead.assignedTo }, ids(ID_PREFIX.account), lead.workspaceId, at);
    account.customFields = accountValues;
    account.uniqueClaims = uniqueClaims(lead.workspaceId, 'account', accountValues, fields.account);
    account.searchText = accountSearchText(account, searchableValues(accountValues, fields.account));
    contact.accountId = account.id;
  }
  if (createOpportunity && account) {
    const name = (opportunityNameGiven ?? `${account.name} opportunity`).slice(0, LIMITS.name);
    opportunity = opportunityDocument(
      {
        name,
        accountId: account.id,
        value: opportunityValue,
        stage: opportunityStage,
        assignedTo: lead.assignedTo,
        source: lead.source,
        contactIds: [contact.id],
      },
      ids(ID_PREFIX.opportunity),
      lead.workspaceId,
      now,
    );
    opportunity.customFields = opportunityValues;
    opportunity.uniqueClaims = uniqueClaims(lead.workspaceId, 'opportunity', opportunityValues, fields.opportunity);
    opportunity.searchText = opportunitySearchText(opportunity, searchableValues(opportunityValues, fields.opportunity));
  }
  return {
    leadChange: { status: 'converted', convertedAt: at, convertedContactId: contact.id, updatedAt: at },
    contact,
    account,
    opportunity,
  };
}
