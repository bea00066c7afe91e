/** The records service over gRPC: every rpc's handler, one file per resource, translation only. */
import type { ServiceHandlers } from '@crm/grpc';
import type { ChangeFeed } from '../application/change-feed';
import type { RecordsResources } from '../application/records-resources';
import { accountHandlers } from './account-handlers';
import { anyKindHandlers } from './any-kind-handlers';
import { contactHandlers } from './contact-handlers';
import { customFieldHandlers } from './custom-field-handlers';
import { leadHandlers } from './lead-handlers';
import { opportunityHandlers } from './opportunity-handlers';
import { recordStreamHandler } from './record-stream-handler';
import { callerOf, type Handlers } from './records-rpc';
import { relatedHandlers } from './related-handlers';

export function recordsHandlers(records: RecordsResources, feed: ChangeFeed): ServiceHandlers {
  // Typed as every rpc: an rpc no file serves fails the typecheck.
  const handlers: Handlers = {
    ...contactHandlers(records),
    ...leadHandlers(records),
    ...accountHandlers(records),
    ...opportunityHandlers(records),
    ...anyKindHandlers(records),
    ...relatedHandlers(records, feed),
    ...customFieldHandlers(records),
  };
  return { ...(handlers as ServiceHandlers), StreamRecords: recordStreamHandler(records, callerOf) };
}
