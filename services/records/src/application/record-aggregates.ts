/**
 * Aggregates of a record list (GET /api/{kind}/aggregate/): the list's own filters, its filter
 * tree and search, grouped and measured by the store (RecordsRepository.aggregateRecords).
 */
import type { AggregateResult, AggregateRow, Scalar } from '@crm/store';
import { parseAggregate, type AggregateSpec } from '../domain/record-aggregate';
import type { RecordType } from '../domain/model';
import { fieldResolver, listCriteria } from './record-field-resolver';
import type { RecordFilters } from '../store/record-filters';
import { accountListFilter, type AccountFilters } from './accounts-service';
import { contactListFilter, type ContactFilters } from './contacts-service';
import { leadListFilter, type LeadFilters } from './leads-service';
import { opportunityListFilter, type OpportunityFilters } from './opportunities-service';
import { searchFor, type RecordsContext } from './records-context';
import type { Caller } from './views';

export interface ListFiltersByType {
  contact: ContactFilters;
  lead: LeadFilters;
  account: AccountFilters;
  opportunity: OpportunityFilters;
}

/** Only the metrics asked for; a sum over no values is 0, the others null. */
export interface AggregateMeasures {
  count?: number;
  sum?: Record<string, number | null>;
  avg?: Record<string, number | null>;
  min?: Record<string, number | null>;
  max?: Record<string, number | null>;
}

export interface AggregateGroupView extends AggregateMeasures {
  /** By the names asked (`stage`, `closeDate:month`); null for an unset key. */
  key: Record<string, Scalar>;
}

export interface AggregateView {
  groups: AggregateGroupView[];
  total: AggregateMeasures;
}

export interface AggregateInput {
  groupBy?: string;
  metrics?: string;
}

function listFilter<T extends RecordType>(type: T, filters: ListFiltersByType[T]): RecordFilters[T] {
  switch (type) {
    case 'contact':
      return contactListFilter(filters as ContactFilters) as RecordFilters[T];
    case 'lead':
      return leadListFilter(filters as LeadFilters) as RecordFilters[T];
    case 'account':
      return accountListFilter(filters as AccountFilters) as RecordFilters[T];
    default:
      return opportunityListFilter(filters as OpportunityFilters) as RecordFilters[T];
  }
}

function measures(spec: AggregateSpec, row: AggregateRow): AggregateMeasures {
  const answer: AggregateMeasures = spec.count ? { count: row.count } : {};
  spec.measures.forEach((measure, i) => {
    (answer[measure.op] ??= {})[measure.name] = row.values[i] ?? null;
  });
  return answer;
}

export function aggregateView(spec: AggregateSpec, result: AggregateResult): AggregateView {
  return {
    groups: result.groups.map((row) => ({
      key: Object.fromEntries(spec.groupBy.map((key, i) => [key.name, row.key[i] ?? null])),
      ...measures(spec, row),
    })),
    total: measures(spec, result.total),
  };
}

export class RecordAggregates {
  constructor(private readonly context: RecordsContext) {}

  async aggregate<T extends RecordType>(
    caller: Caller,
    type: T,
    filters: ListFiltersByType[T],
    input: AggregateInput,
  ): Promise<AggregateView> {
    const fields = await fieldResolver(this.context, caller.workspaceId, type);
    const spec = parseAggregate(input.groupBy, input.metrics, fields);
    const filter = listFilter(type, filters);
    const { filter: tree } = await listCriteria(
      this.context,
      caller.workspaceId,
      type,
      { filter: filters.filter, customFieldEquals: filters.customFieldEquals },
      fields,
    );
    const criteria = { filter: tree, search: searchFor(filters.search) };
    const result = await this.context.repo.aggregateRecords(caller.workspaceId, type, filter, criteria, spec);
    return aggregateView(spec, result);
  }
}
