/** What the import application needs from the outside, as small interfaces so unit tests can fake them. */
import type { CallOptions, CallerContext, recordsV1 } from '@crm/grpc';

export interface RecordsClient {
  call<K extends 'BatchCreateContacts' | 'GetContactBatch' | 'GetSource' | 'ListContacts'>(
    method: K,
    request: Partial<recordsV1.RecordsServiceMethods[K]['request']>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<recordsV1.RecordsServiceMethods[K]['response']>;
}
