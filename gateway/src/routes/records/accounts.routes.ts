/** Accounts: `/api/accounts/` CRUD and list, and an account's contacts. */
import { ACCOUNT_STAGES, FIELD_LIMITS } from '@crm/vocabulary';
import type { Router } from 'express';
import { idParameter, operation, type OpenApiPaths } from '../../openapi/operation';
import { pathId } from '../validate';
import { contactFields } from './contacts.routes';
import { countedList, readListQuery } from './list-query';
import { listParameters, type RecordKind, type RecordsCall } from './record-routes';
import {
  EXTERNAL_ID_FIELD,
  CUSTOM_FIELDS_FIELD,
  fromTable,
  orderingParameter,
  searchParameter,
  TAGS_WRITE,
  type RecordFields,
} from './record-fields';
import { countedListSchema, objectSchema, render, t, type RecordMessage } from './record-shape';

const billingAddress = {
  type: ['object', 'null'],
  description: 'Null when the account has none.',
  required: ['street', 'city', 'state', 'postalCode', 'country'],
  properties: { street: t.string(), city: t.string(), state: t.string(), postalCode: t.string(), country: t.string() },
  additionalProperties: false,
};

const ACCOUNT_FIELDS: RecordFields = {
  id: { answer: t.id('acc_'), listed: true },
  externalId: EXTERNAL_ID_FIELD,
  name: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.name }, required: true, listed: true },
  website: {
    answer: t.string('An http(s) URL, or empty.'),
    write: { type: 'string', format: 'uri', maxLength: FIELD_LIMITS.url, description: 'An http(s) URL; null or empty clears.' },
    listed: true,
  },
  industry: {
    answer: t.string(),
    write: { type: 'string', maxLength: FIELD_LIMITS.shortText },
    listed: true,
    filter: { description: 'Exact industry.' },
  },
  companySize: { answer: t.string('A range label.'), write: { type: 'string', maxLength: FIELD_LIMITS.shortText }, listed: true },
  annualRevenue: {
    answer: t.nullableNumber('Null when not set.'),
    write: { type: 'number', nullable: true, minimum: 0, description: 'Null clears.' },
  },
  stage: {
    answer: t.choice(ACCOUNT_STAGES),
    write: { type: 'string', choices: ACCOUNT_STAGES, description: 'Default `prospect`.' },
    listed: true,
    filter: { description: 'An account stage value.', schema: t.choice(ACCOUNT_STAGES) },
  },
  phone: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.shortText } },
  billingAddress: {
    answer: billingAddress,
    write: { type: 'address', description: 'street, city, state, postalCode, country (strings).' },
  },
  assignedTo: {
    answer: t.nullableString('Owner user id, or null.'),
    write: { type: 'string', nullable: true },
    listed: true,
    filter: { description: 'Owner user id.' },
  },
  assignedToName: { answer: t.nullableString("The owner's name (read-only).") },
  tags: {
    answer: t.strings(),
    write: TAGS_WRITE,
  },
  description: { answer: t.string(), write: { type: 'string', maxLength: FIELD_LIMITS.longText } },
  contactCount: { answer: t.integer('Contacts linked to the account (read-only).'), listed: true },
  openOpportunityCount: { answer: t.integer('Linked opportunities not closed (read-only).'), listed: true },
  openCaseCount: { answer: t.integer('Open support cases (read-only; always 0 for now).') },
  createdAt: { answer: t.timestamp(), listed: true },
  updatedAt: { answer: t.timestamp(), listed: true },
  customFields: CUSTOM_FIELDS_FIELD,
};

type AccountFilter = 'externalId' | 'stage' | 'industry' | 'assignedTo' | 'search' | 'ordering';

const accountTable = fromTable<AccountFilter>(ACCOUNT_FIELDS, [
  'externalId',
  'stage',
  'industry',
  'assignedTo',
  searchParameter('Case-insensitive literal substring of the company name or website (one literal, no wildcards).'),
  orderingParameter('account'),
]);

export const accountKind: RecordKind<AccountFilter> = {
  singular: 'account',
  plural: 'accounts',
  name: 'Account',
  pluralName: 'Accounts',
  aName: 'an account',
  path: '/api/accounts',
  tag: 'accounts',
  idPrefix: 'acc_',
  ...accountTable,
  listRequest: (f) => ({ ...f }),
  createDescription: 'Requires `name`. Every failing field is listed in one 422. Read-only fields are ignored.',
  updateDescription: 'Any subset of the writable fields. Read-only fields (counts, names, timestamps) are ignored.',
  listDescription: 'Paginated account list items, newest first.',
  deleteDescription: 'Its contacts and opportunities stay and lose their account link (accountId null).',
  mergeable: true,
};

const ACCOUNT_CONTACT_FIELDS = ['id', 'firstName', 'lastName', 'email', 'title', 'stage'] as const;

/** GET /api/accounts/{id}/contacts/ (paginated), on the accounts router. */
export function accountContactsRoute(router: Router, call: RecordsCall): OpenApiPaths {
  router.get('/api/accounts/:id/contacts', async (req, res) => {
    const accountId = pathId(req.params.id);
    const list = readListQuery(req, [], { cursor: true });
    const answer = await call('ListAccountContacts', { accountId, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' }, res);
    const results = (answer.contacts as RecordMessage[]).map((contact) => render(contact, ACCOUNT_CONTACT_FIELDS));
    res.json(countedList(list, answer.total as number, results, answer.nextCursor as string));
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
            schema: countedListSchema(objectSchema(contactFields, ACCOUNT_CONTACT_FIELDS), "The account's contacts, newest first."),
          },
        },
        errors: [400, 404],
      }),
    },
  };
}
