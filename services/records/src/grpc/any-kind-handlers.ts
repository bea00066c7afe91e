/** The rpcs that take a record kind as a value: the filter language, aggregates, batch writes, one record of any kind. */
import type { recordsV1 } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { Caller } from '../application/views';
import type { RecordsResources } from '../application/records-resources';
import { recordJson } from '../application/record-views';
import { accountMessage, aggregateMessage, contactMessage, leadMessage, opportunityMessage } from './proto-mapping';
import { batchWriteInput, batchWriteMessage } from './batch-mapping';
import { type RpcHandlers, callerOf, listRequest, nonEmpty, pageOf } from './records-rpc';
import { accountFiltersOf, contactFiltersOf, leadFiltersOf, opportunityFiltersOf } from './list-filters';

type AnyKindRpc = 'QueryRecords' | 'AggregateRecords' | 'BatchWriteRecords' | 'GetRecord';

export function anyKindHandlers(records: RecordsResources): RpcHandlers<AnyKindRpc> {
  return {
    QueryRecords: (r, c) => queryRecords(records, r, callerOf(c)),
    AggregateRecords: (r, c) => aggregateRecords(records, r, callerOf(c)),
    BatchWriteRecords: async (r, c) => batchWriteMessage(await records.recordBatches.write(callerOf(c), batchWriteInput(r))),
    GetRecord: async (r, c) => {
      const found = await records.anyRecords.get(callerOf(c), r.recordType, r.id);
      return {
        recordType: found.type,
        contact: found.type === 'contact' ? contactMessage(found.record) : null,
        lead: found.type === 'lead' ? leadMessage(found.record) : null,
        account: found.type === 'account' ? accountMessage(found.record) : null,
        opportunity: found.type === 'opportunity' ? opportunityMessage(found.record) : null,
        fieldsJson: recordJson(found),
      };
    },
  };
}

/** POST /api/{kind}/query/: the page in the message field of its kind. */
async function queryRecords(
  records: RecordsResources,
  r: recordsV1.QueryRecordsRequest,
  caller: Caller,
): Promise<recordsV1.QueryRecordsResponse> {
  const query = {
    filter: nonEmpty(r.filter),
    search: nonEmpty(r.search),
    ordering: nonEmpty(r.ordering),
    limit: r.limit,
    cursor: nonEmpty(r.cursor),
  };
  const empty = { contacts: [], leads: [], accounts: [], opportunities: [] };
  switch (r.recordType) {
    case 'contact': {
      const page = await records.queries.query(caller, 'contact', query);
      return { ...empty, ...pageOf(page), contacts: page.items.map(contactMessage) };
    }
    case 'lead': {
      const page = await records.queries.query(caller, 'lead', query);
      return { ...empty, ...pageOf(page), leads: page.items.map(leadMessage) };
    }
    case 'account': {
      const page = await records.queries.query(caller, 'account', query);
      return { ...empty, ...pageOf(page), accounts: page.items.map(accountMessage) };
    }
    case 'opportunity': {
      const page = await records.queries.query(caller, 'opportunity', query);
      return { ...empty, ...pageOf(page), opportunities: page.items.map(opportunityMessage) };
    }
    default:
      throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
  }
}

/** GET /api/{kind}/aggregate/: the kind's list filters, from the request's list message of that kind. */
async function aggregateRecords(
  records: RecordsResources,
  r: recordsV1.AggregateRecordsRequest,
  caller: Caller,
): Promise<recordsV1.AggregateRecordsResponse> {
  const input = { groupBy: nonEmpty(r.groupBy), metrics: nonEmpty(r.metrics) };
  switch (r.recordType) {
    case 'contact':
      return aggregateMessage(await records.aggregates.aggregate(caller, 'contact', contactFiltersOf(listRequest(r.contacts)), input));
    case 'lead':
      return aggregateMessage(await records.aggregates.aggregate(caller, 'lead', leadFiltersOf(listRequest(r.leads)), input));
    case 'account':
      return aggregateMessage(await records.aggregates.aggregate(caller, 'account', accountFiltersOf(listRequest(r.accounts)), input));
    case 'opportunity':
      return aggregateMessage(
        await records.aggregates.aggregate(caller, 'opportunity', opportunityFiltersOf(listRequest(r.opportunities)), input),
      );
    default:
      throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
  }
}
