import type { Client } from 'openapi-fetch';
import type { Lead, LeadConversion, LeadConverted, LeadCreate, LeadListItem, LeadUpdate, ListQuery, LeadMerge } from '../api-types';
import { CursorList } from '../cursor-list';
import type { paths } from '../generated/crm-api';
import { answer, conditionalHeaders, createHeaders, type ConditionalOptions, type CreateOptions } from './answer';

export class LeadsResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listLeads'> = {}): CursorList<LeadListItem> {
    return new CursorList((cursor) => answer(this.api.GET('/api/leads/', { params: { query: { ...query, cursor } } })));
  }

  get(id: string): Promise<Lead> {
    return answer(this.api.GET('/api/leads/{id}/', { params: { path: { id } } }));
  }

  create(lead: LeadCreate, options?: CreateOptions): Promise<Lead> {
    return answer(this.api.POST('/api/leads/', { body: lead, headers: createHeaders(options) }));
  }

  update(id: string, changes: LeadUpdate, options?: ConditionalOptions): Promise<Lead> {
    return answer(this.api.PATCH('/api/leads/{id}/', { params: { path: { id } }, body: changes, headers: conditionalHeaders(options) }));
  }

  async delete(id: string, options?: ConditionalOptions): Promise<void> {
    await answer(this.api.DELETE('/api/leads/{id}/', { params: { path: { id } }, headers: conditionalHeaders(options) }));
  }

  /** Merges `mergeIds` into the lead `id`, which survives (docs/api.md, merging duplicates). */
  merge(id: string, merge: LeadMerge, options?: CreateOptions): Promise<Lead> {
    return answer(this.api.POST('/api/leads/{id}/merge/', { params: { path: { id } }, body: merge, headers: createHeaders(options) }));
  }

  /** Converts the lead into a contact, and an account and an opportunity when asked; 400 when it is already converted. */
  convert(id: string, conversion: LeadConversion = {}, options?: CreateOptions): Promise<LeadConverted> {
    return answer(
      this.api.POST('/api/leads/{id}/convert/', { params: { path: { id } }, body: conversion, headers: createHeaders(options) }),
    );
  }
}
