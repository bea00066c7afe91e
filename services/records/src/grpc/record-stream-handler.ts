/** StreamRecords: translation only, the records of a snapshot read as typed record messages. */
import type { CallContext, recordsV1, StreamHandler } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { RecordsResources } from '../application/records-resources';
import type { AccountView, Caller, ContactView, LeadView, OpportunityView } from '../application/views';
import type { RecordType } from '../domain/model';
import { accountMessage, contactMessage, leadMessage, opportunityMessage } from './proto-mapping';

type Request = recordsV1.StreamRecordsRequest;
type Response = recordsV1.StreamRecordsResponse;

const EMPTY: Response = { total: 0, contacts: [], leads: [], accounts: [], opportunities: [] };

function batchOf(type: RecordType, items: unknown[]): Response {
  switch (type) {
    case 'contact':
      return { ...EMPTY, contacts: (items as ContactView[]).map(contactMessage) };
    case 'lead':
      return { ...EMPTY, leads: (items as LeadView[]).map(leadMessage) };
    case 'account':
      return { ...EMPTY, accounts: (items as AccountView[]).map(accountMessage) };
    default:
      return { ...EMPTY, opportunities: (items as OpportunityView[]).map(opportunityMessage) };
  }
}

const TYPES: readonly string[] = ['contact', 'lead', 'account', 'opportunity'];

/** `callerOf`: the handlers' reading of the caller (records-handlers.ts), passed in to keep imports one way. */
export function recordStreamHandler(
  records: RecordsResources,
  callerOf: (context: CallContext) => Caller,
): StreamHandler<Request, Response> {
  return async (r, c, send) => {
    if (!TYPES.includes(r.recordType)) throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
    const type = r.recordType as RecordType;
    const parts = records.streams.stream(callerOf(c), type, {
      filter: r.filter || undefined,
      search: r.search || undefined,
      ordering: r.ordering || undefined,
      batchSize: r.batchSize,
    });
    for await (const part of parts) {
      await send('total' in part ? { ...EMPTY, total: part.total } : batchOf(type, part.items));
    }
  };
}
