/** What the import application needs from the outside, as small interfaces so unit tests can fake them. */
import type { CallOptions, CallRequest, CallerContext, recordsV1 } from '@crm/grpc';

export interface RecordsClient {
  call<K extends 'BatchCreateContacts' | 'GetContactBatch' | 'GetSource' | 'ListContacts' | 'ListCustomFields' | 'QueryRecords'>(
    method: K,
    request: CallRequest<recordsV1.RecordsServiceMethods, K>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<recordsV1.RecordsServiceMethods[K]['response']>;
}

/** The records read an export's run streams (StreamRecords, a snapshot of a kind's list). */
export interface RecordsReader {
  stream<K extends 'StreamRecords'>(
    method: K,
    request: CallRequest<recordsV1.RecordsServiceMethods, K>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): AsyncIterable<recordsV1.RecordsServiceMethods[K]['response']>;
}
