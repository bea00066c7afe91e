import type { Client } from 'openapi-fetch';
import type { ListQuery, Opportunity, OpportunityCreate, OpportunityListItem, OpportunityUpdate } from '../api-types';
import { CursorList } from '../cursor-list';
import type { paths } from '../generated/crm-api';
import { answer, conditionalHeaders, createHeaders, type ConditionalOptions, type CreateOptions } from './answer';

export class OpportunitiesResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listOpportunities'> = {}): CursorList<OpportunityListItem> {
    return new CursorList((cursor) => answer(this.api.GET('/api/opportunities/', { params: { query: { ...query, cursor } } })));
  }

  get(id: string): Promise<Opportunity> {
    return answer(this.api.GET('/api/opportunities/{id}/', { params: { path: { id } } }));
  }

  create(opportunity: OpportunityCreate, options?: CreateOptions): Promise<Opportunity> {
    return answer(this.api.POST('/api/opportunities/', { body: opportunity, headers: createHeaders(options) }));
  }

  update(id: string, changes: OpportunityUpdate, options?: ConditionalOptions): Promise<Opportunity> {
    return answer(
      this.api.PATCH('/api/opportunities/{id}/', { params: { path: { id } }, body: changes, headers: conditionalHeaders(options) }),
    );
  }

  async delete(id: string, options?: ConditionalOptions): Promise<void> {
    await answer(this.api.DELETE('/api/opportunities/{id}/', { params: { path: { id } }, headers: conditionalHeaders(options) }));
  }
}
