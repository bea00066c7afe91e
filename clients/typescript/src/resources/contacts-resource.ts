import type { Client } from 'openapi-fetch';
import type { Contact, ContactCreate, ContactListItem, ContactUpdate, ListQuery, ContactMerge } from '../api-types';
import { CursorList } from '../cursor-list';
import type { paths } from '../generated/crm-api';
import { answer, conditionalHeaders, createHeaders, type ConditionalOptions, type CreateOptions } from './answer';

export class ContactsResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listContacts'> = {}): CursorList<ContactListItem> {
    return new CursorList((cursor) => answer(this.api.GET('/api/contacts/', { params: { query: { ...query, cursor } } })));
  }

  get(id: string): Promise<Contact> {
    return answer(this.api.GET('/api/contacts/{id}/', { params: { path: { id } } }));
  }

  create(contact: ContactCreate, options?: CreateOptions): Promise<Contact> {
    return answer(this.api.POST('/api/contacts/', { body: contact, headers: createHeaders(options) }));
  }

  update(id: string, changes: ContactUpdate, options?: ConditionalOptions): Promise<Contact> {
    return answer(this.api.PATCH('/api/contacts/{id}/', { params: { path: { id } }, body: changes, headers: conditionalHeaders(options) }));
  }

  async delete(id: string, options?: ConditionalOptions): Promise<void> {
    await answer(this.api.DELETE('/api/contacts/{id}/', { params: { path: { id } }, headers: conditionalHeaders(options) }));
  }

  /** Merges `mergeIds` into the contact `id`, which survives (docs/api.md, merging duplicates). */
  merge(id: string, merge: ContactMerge, options?: CreateOptions): Promise<Contact> {
    return answer(this.api.POST('/api/contacts/{id}/merge/', { params: { path: { id } }, body: merge, headers: createHeaders(options) }));
  }
}
