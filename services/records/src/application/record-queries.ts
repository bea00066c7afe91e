/**
 * The filter language's query of a record list (POST /api/{kind}/query/): a filter tree, a
 * search, up to three ordering keys, and a page by cursor, counted on every page.
 */
import * as lists from '../domain/list-rules';
import { parseFilterJson, parseOrdering } from '../domain/record-filter';
import { fieldResolver } from './record-field-resolver';
import type { RecordType } from '../domain/model';
import type { ListResult } from '../store/records-repository';
import { searchFor, type RecordsContext } from './records-context';
import type { AccountView, Caller, ContactView, LeadView, OpportunityView } from './views';

export interface RecordQuery {
  /** The filter tree as JSON text, unchecked; empty or undefined for none. */
  filter?: string;
  search?: string;
  ordering?: string;
  limit?: number;
  cursor?: string;
}

export interface RecordViewsByType {
  contact: ContactView;
  lead: LeadView;
  account: AccountView;
  opportunity: OpportunityView;
}

export class RecordQueries {
  constructor(private readonly context: RecordsContext) {}

  async query<T extends RecordType>(caller: Caller, type: T, input: RecordQuery): Promise<ListResult<RecordViewsByType[T]>> {
    const fields = await fieldResolver(this.context, caller.workspaceId, type);
    const filter = parseFilterJson(input.filter, fields);
    const orderingKeys = parseOrdering(input.ordering, fields);
    const result = await this.context.repo.listRecords(
      caller.workspaceId,
      type,
      {},
      {
        filter,
        search: searchFor(input.search),
        ordering: lists.ordering(type, undefined),
        orderingKeys,
        page: lists.page(0, input.limit),
        cursor: input.cursor,
        countCursorPages: true,
      },
    );
    return { ...result, items: await this.views(caller.workspaceId, type, result.items) };
  }

  /** The list items of stored records (names and counts filled in). */
  async views<T extends RecordType>(workspaceId: string, type: T, items: unknown[]): Promise<RecordViewsByType[T][]> {
    const { views } = this.context;
    switch (type) {
      case 'contact':
        return (await views.contacts(workspaceId, items as never, false)) as RecordViewsByType[T][];
      case 'lead':
        return (await views.leads(workspaceId, items as never, false)) as RecordViewsByType[T][];
      case 'account':
        return (await views.accounts(workspaceId, items as never, false)) as RecordViewsByType[T][];
      default:
        return (await views.opportunities(workspaceId, items as never, false)) as RecordViewsByType[T][];
    }
  }
}
