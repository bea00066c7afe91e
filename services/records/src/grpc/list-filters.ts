/** A list request's filters as the records resources take them (blank proto strings are no filter). */
import type { recordsV1 } from '@crm/grpc';
import { nonEmpty } from './records-rpc';

export function contactFiltersOf(r: recordsV1.ListContactsRequest) {
  return {
    filter: nonEmpty(r.filter),
    customFieldEquals: nonEmpty(r.customFieldEquals),
    externalId: nonEmpty(r.externalId),
    stage: nonEmpty(r.stage),
    assignedTo: nonEmpty(r.assignedTo),
    search: nonEmpty(r.search),
    createdAfter: nonEmpty(r.createdAfter),
    createdBefore: nonEmpty(r.createdBefore),
    tags: r.tags,
    ordering: nonEmpty(r.ordering),
  };
}

export function leadFiltersOf(r: recordsV1.ListLeadsRequest) {
  return {
    filter: nonEmpty(r.filter),
    customFieldEquals: nonEmpty(r.customFieldEquals),
    externalId: nonEmpty(r.externalId),
    status: nonEmpty(r.status),
    source: nonEmpty(r.source),
    assignedTo: nonEmpty(r.assignedTo),
    search: nonEmpty(r.search),
    createdAfter: nonEmpty(r.createdAfter),
    createdBefore: nonEmpty(r.createdBefore),
    ordering: nonEmpty(r.ordering),
  };
}

export function accountFiltersOf(r: recordsV1.ListAccountsRequest) {
  return {
    filter: nonEmpty(r.filter),
    customFieldEquals: nonEmpty(r.customFieldEquals),
    externalId: nonEmpty(r.externalId),
    stage: nonEmpty(r.stage),
    industry: nonEmpty(r.industry),
    assignedTo: nonEmpty(r.assignedTo),
    search: nonEmpty(r.search),
    ordering: nonEmpty(r.ordering),
  };
}

export function opportunityFiltersOf(r: recordsV1.ListOpportunitiesRequest) {
  return {
    filter: nonEmpty(r.filter),
    customFieldEquals: nonEmpty(r.customFieldEquals),
    externalId: nonEmpty(r.externalId),
    stage: nonEmpty(r.stage),
    accountId: nonEmpty(r.accountId),
    assignedTo: nonEmpty(r.assignedTo),
    closeDateAfter: nonEmpty(r.closeDateAfter),
    closeDateBefore: nonEmpty(r.closeDateBefore),
    valueMin: nonEmpty(r.valueMin),
    valueMax: nonEmpty(r.valueMax),
    search: nonEmpty(r.search),
    ordering: nonEmpty(r.ordering),
  };
}
