/** Accounts: `/api/accounts/` CRUD and list, and an account's contacts. */
import type { Router } from 'express';
import type { GatewayConfig } from '../../config';
import { idParameter, operation, type OpenApiPaths } from '../../openapi/operation';
import { pathId } from '../validate';
import { contactFields } from './contacts.routes';
import { paginated, readListQuery } from './list-query';
import { listParameters, type RecordKind, type RecordsCall } from './record-routes';
import { objectSchema, pageSchema, render, t, type RecordMessage, type ResponseFields } from './record-shape';

export const ACCOUNT_STAGES = ['prospect', 'active', 'customer', 'partner', 'churned'] as const;

const billingAddress = {
  type: ['object', 'null'],
  description: 'Null when the account has none.',
  required: ['street', 'city', 'state', 'postalCode', 'country'],
  properties: { street: t.string(), city: t.string(), state: t.string(), postalCode: t.string(), country: t.string() },
  additionalProperties: false,
};

export const accountFields: ResponseFields = {
  id: t.id('acc_'),
  name: t.string(),
  website: t.string('An http(s) URL, or empty.'),
  industry: t.string(),
  companySize: t.string('A range label.'),
  annualRevenue: t.nullableNumber('Null when not set.'),
  stage: t.choice(ACCOUNT_STAGES),
  phone: t.string(),
  billingAddress,
  assignedTo: t.nullableString('Owner user id, or null.'),
  assignedToName: t.nullableString("The owner's name (read-only)."),
  tags: t.strings(),
  description: t.string(),
  contactCount: t.integer('Contacts linked to the account (read-only).'),
  openOpportunityCount: t.integer('Linked opportunities not closed (read-only).'),
  openCaseCount: t.integer('Open support cases (read-only; always 0 for now).'),
  createdAt: t.timestamp(),
  updatedAt: t.timestamp(),
};

type AccountFilter = 'stage' | 'industry' | 'assignedTo' | 'search' | 'ordering';

export const accountKind: RecordKind<AccountFilter> = {
  singular: 'account',
  plural: 'accounts',
  name: 'Account',
  pluralName: 'Accounts',
  aName: 'an account',
  path: '/api/accounts',
  tag: 'accounts',
  idPrefix: 'acc_',
  write: {
    fields: {
      name: { type: 'string' },
      website: { type: 'string', format: 'uri', description: 'An http(s) URL.' },
      industry: { type: 'string' },
      companySize: { type: 'string' },
      annualRevenue: { type: 'number', nullable: true, description: '≥ 0; null clears.' },
      stage: { type: 'string', choices: ACCOUNT_STAGES, description: 'Default `prospect`.' },
      phone: { type: 'string' },
      billingAddress: { type: 'address', description: 'street, city, state, postalCode, country (strings).' },
      assignedTo: { type: 'string', nullable: true },
      tags: { type: 'strings' },
      description: { type: 'string' },
    },
    readOnly: ['id', 'assignedToName', 'contactCount', 'openOpportunityCount', 'openCaseCount', 'createdAt', 'updatedAt'],
    required: ['name'],
  },
  responseFields: accountFields,
  fullFields: [
    'id',
    'name',
    'website',
    'industry',
    'companySize',
    'annualRevenue',
    'stage',
    'phone',
    'billingAddress',
    'assignedTo',
    'assignedToName',
    'tags',
    'description',
    'contactCount',
    'openOpportunityCount',
    'openCaseCount',
    'createdAt',
    'updatedAt',
  ],
  listFields: [
    'id',
    'name',
    'website',
    'industry',
    'companySize',
    'stage',
    'assignedTo',
    'contactCount',
    'openOpportunityCount',
    'createdAt',
    'updatedAt',
  ],
  filters: [
    { name: 'stage', description: 'An account stage value.', schema: t.choice(ACCOUNT_STAGES) },
    { name: 'industry', description: 'Exact industry.', schema: t.string() },
    { name: 'assignedTo', description: 'Owner user id.', schema: t.string() },
    {
      name: 'search',
      description: 'Case-insensitive literal substring of the company name or website (one literal, no wildcards).',
      schema: t.string(),
    },
    {
      name: 'ordering',
      description: 'createdAt, updatedAt, name, stage or industry; `-` for descending. Default `-createdAt`.',
      schema: t.string(),
    },
  ],
  listRequest: (f) => ({ ...f }),
  createDescription: 'Requires `name`. Every failing field is listed in one 422. Read-only fields are ignored.',
  updateDescription: 'Any subset of the writable fields. Read-only fields (counts, names, timestamps) are ignored.',
  listDescription: 'Paginated account list items, newest first.',
  deleteDescription: 'Its contacts and opportunities stay and lose their account link (accountId null).',
  mergeable: true,
};

const ACCOUNT_CONTACT_FIELDS = ['id', 'firstName', 'lastName', 'email', 'title', 'stage'] as const;

/** GET /api/accounts/{id}/contacts/ (paginated), on the accounts router. */
export function accountContactsRoute(router: Router, call: RecordsCall, config: GatewayConfig): OpenApiPaths {
  router.get('/api/accounts/:id/contacts', async (req, res) => {
    const accountId = pathId(req.params.id);
    const list = readListQuery(req, [], { cursor: true });
    const answer = await call('ListAccountContacts', { accountId, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' }, res);
    const results = (answer.contacts as RecordMessage[]).map((contact) => render(contact, ACCOUNT_CONTACT_FIELDS));
    res.json(paginated(req, config, list, answer.total as number, results, answer.nextCursor as string));
  });
  return {
    '/api/accounts/{id}/contacts/': {
      get: operation({
        operationId: 'listAccountContacts',
        summary: 'The contacts linked to an account',
        description: 'The linked contacts, newest first, a page at a time.',
        tags: ['accounts'],
        authenticated: true,
        parameters: [idParameter('The account id (`acc_...`).'), ...listParameters([], { cursor: true })],
        responses: {
          200: {
            description: "A page of the account's contacts.",
            schema: pageSchema(objectSchema(contactFields, ACCOUNT_CONTACT_FIELDS), "A page of the account's contacts, newest first.", {
              cursor: true,
            }),
          },
        },
        errors: [400, 404],
      }),
    },
  };
}
