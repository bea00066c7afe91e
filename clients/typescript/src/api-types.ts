/** Names for the generated types (src/generated/crm-api.ts) that the resources take and give. */
import type { operations } from './generated/crm-api';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body an operation takes. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends { requestBody?: infer Body }
  ? Json<NonNullable<Body>>
  : never;
/** The JSON an operation answers with a given status. */
export type Answer<Op extends keyof operations, Status extends keyof operations[Op]['responses']> = Json<
  operations[Op]['responses'][Status]
>;
/** A list's filters and ordering, without its paging (the SDK pages by cursor; `limit` sets the page size). */
export type ListQuery<Op extends keyof operations> = Omit<NonNullable<operations[Op]['parameters']['query']>, 'page' | 'offset' | 'cursor'>;
/** One item of a list. */
export type ListItem<Op extends keyof operations> =
  Answer<Op, 200 & keyof operations[Op]['responses']> extends { results: (infer Item)[] } ? Item : never;

export type Contact = Answer<'getContact', 200>;
export type ContactListItem = ListItem<'listContacts'>;
export type ContactCreate = RequestBody<'createContact'>;
export type ContactUpdate = RequestBody<'updateContact'>;
export type Lead = Answer<'getLead', 200>;
export type LeadListItem = ListItem<'listLeads'>;
export type LeadCreate = RequestBody<'createLead'>;
export type LeadUpdate = RequestBody<'updateLead'>;
export type LeadConversion = RequestBody<'convertLead'>;
export type LeadConverted = Answer<'convertLead', 200>;
export type Account = Answer<'getAccount', 200>;
export type AccountListItem = ListItem<'listAccounts'>;
export type AccountCreate = RequestBody<'createAccount'>;
export type AccountUpdate = RequestBody<'updateAccount'>;
export type AccountContact = ListItem<'listAccountContacts'>;
export type Opportunity = Answer<'getOpportunity', 200>;
export type OpportunityListItem = ListItem<'listOpportunities'>;
export type OpportunityCreate = RequestBody<'createOpportunity'>;
export type OpportunityUpdate = RequestBody<'updateOpportunity'>;
export type ContactMerge = RequestBody<'mergeContacts'>;
export type LeadMerge = RequestBody<'mergeLeads'>;
export type AccountMerge = RequestBody<'mergeAccounts'>;
export type AutomationRule = Answer<'getAutomationRule', 200>;
export type AutomationRuleListItem = ListItem<'listAutomationRules'>;
export type AutomationRuleCreate = RequestBody<'createAutomationRule'>;
export type AutomationRuleUpdate = RequestBody<'updateAutomationRule'>;
export type ExecutionLog = ListItem<'listAutomationRuleLogs'>;
export type AutomationTemplate = Answer<'getAutomationTemplate', 200>;
export type AutomationTemplateListItem = ListItem<'listAutomationTemplates'>;
export type Webhook = Answer<'getWebhook', 200>;
export type WebhookCreate = RequestBody<'createWebhook'>;
export type WebhookCreated = Answer<'createWebhook', 201>;
export type WebhookUpdate = RequestBody<'updateWebhook'>;
export type WebhookDelivery = ListItem<'listWebhookDeliveries'>;
export type ApiKey = ListItem<'listApiKeys'>;
export type CreatedApiKey = Answer<'createApiKey', 201>;
export type ApiKeyUsage = Answer<'getApiKeyUsage', 200>;
export type CurrentUser = Answer<'getCurrentUser', 200>;
export type Task = ListItem<'listTasks'>;
export type Activity = ListItem<'listActivities'>;
