/** Accounts: `/api/accounts/` CRUD and list, and an account's contacts. */
import { ACCOUNT_FIELDS } from '@crm/vocabulary';
import type { Router } from 'express';
import { idParameter, operation, type OpenApiPaths } from '../../openapi/operation';
import { pathId } from '../validate';
import { contactKind } from './contacts.routes';
import { answerSchema } from '../field-table';
import { countedList, readListQuery } from './list-query';
import { listParameters } from './record-routes';
import { type RecordsCall } from './records-call';
import { type RecordKind } from './record-kind';
import { recordFieldsOf } from './built-in-record-fields';
import { fromTable, orderingParameter, searchParameter } from './record-fields';
import { countedListSchema, pickAnswer, renderRecord } from './record-shape';

type AccountFilter = 'externalId' | 'stage' | 'industry' | 'assignedTo' | 'search' | 'ordering';

const accountTable = fromTable<AccountFilter>(recordFieldsOf(ACCOUNT_FIELDS), [
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
  merge: 'MergeAccount',
};

const accountContact = pickAnswer(contactKind.answer, ['id', 'firstName', 'lastName', 'email', 'title', 'stage']);

/** GET /api/accounts/{id}/contacts/ (paginated), on the accounts router. */
export function accountContactsRoute(router: Router, call: RecordsCall): void {
  router.get('/api/accounts/:id/contacts', async (req, res) => {
    const accountId = pathId(req.params.id);
    const list = readListQuery(req, [], { cursor: true });
    const answer = await call('ListAccountContacts', { accountId, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' }, res);
    const results = answer.contacts.map((contact) => renderRecord(accountContact, contact));
    res.json(countedList(list, answer.total as number, results, answer.nextCursor as string));
  });
}

/** The OpenAPI part of {@link accountContactsRoute}. */
export function accountContactsPaths(): OpenApiPaths {
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
            schema: countedListSchema(answerSchema(accountContact), "The account's contacts, newest first."),
          },
        },
        errors: [400, 404],
      }),
    },
  };
}
