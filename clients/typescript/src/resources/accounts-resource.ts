import type { Client } from 'openapi-fetch';
import type { Account, AccountContact, AccountCreate, AccountListItem, AccountUpdate, ListQuery, AccountMerge } from '../api-types';
import { CursorList } from '../cursor-list';
import type { paths } from '../generated/crm-api';
import { answer, conditionalHeaders, createHeaders, type ConditionalOptions, type CreateOptions } from './answer';

export class AccountsResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listAccounts'> = {}): CursorList<AccountListItem> {
    return new CursorList((cursor) => answer(this.api.GET('/api/accounts/', { params: { query: { ...query, cursor } } })));
  }

  get(id: string): Promise<Account> {
    return answer(this.api.GET('/api/accounts/{id}/', { params: { path: { id } } }));
  }

  create(account: AccountCreate, options?: CreateOptions): Promise<Account> {
    return answer(this.api.POST('/api/accounts/', { body: account, headers: createHeaders(options) }));
  }

  update(id: string, changes: AccountUpdate, options?: ConditionalOptions): Promise<Account> {
    return answer(this.api.PATCH('/api/accounts/{id}/', { params: { path: { id } }, body: changes, headers: conditionalHeaders(options) }));
  }

  async delete(id: string, options?: ConditionalOptions): Promise<void> {
    await answer(this.api.DELETE('/api/accounts/{id}/', { params: { path: { id } }, headers: conditionalHeaders(options) }));
  }

  /** Merges `mergeIds` into the account `id`, which survives (docs/api.md, merging duplicates). */
  merge(id: string, merge: AccountMerge, options?: CreateOptions): Promise<Account> {
    return answer(this.api.POST('/api/accounts/{id}/merge/', { params: { path: { id } }, body: merge, headers: createHeaders(options) }));
  }

  /** The account's contacts, newest first. */
  contacts(id: string, query: ListQuery<'listAccountContacts'> = {}): CursorList<AccountContact> {
    return new CursorList((cursor) =>
      answer(this.api.GET('/api/accounts/{id}/contacts/', { params: { path: { id }, query: { ...query, cursor } } })),
    );
  }
}
