/**
 * The records service's operations, one object per resource, built once from the store and shared
 * context: each reads the documents a rule needs, applies the rule from domain/, and writes the
 * change, its audit-log activity and its outbox events in one commit through the one writer
 * (record-writer.ts). No transport here (grpc/ translates) and no query syntax (store/ owns it).
 */
import { createLogger, type Logger } from '@crm/observability';
import { systemClock, type Clock } from '@crm/vocabulary';
import { defaultIds, type IdGenerator } from '../domain/ids';
import type { UserDirectory } from '../adapters/user-directory';
import type { RecordsRepository } from '../store/records-repository';
import { SuppressionRepository } from '../store/suppression-repository';
import { CustomFieldRepository } from '../store/custom-field-repository';
import { AuditStaging } from '../store/audit-staging';
import { AccountsService } from './accounts-service';
import { AnyRecords } from './any-records';
import { AuditLog } from './audit-log';
import { BulkLane } from './bulk-lane';
import { ContactBatches } from './contact-batches';
import { ContactsService } from './contacts-service';
import { CustomFieldsService } from './custom-fields-service';
import { LeadsService } from './leads-service';
import { OpportunitiesService } from './opportunities-service';
import { RecordAggregates } from './record-aggregates';
import { RecordBatches } from './record-batches';
import { RecordMerges } from './record-merges';
import { RecordQueries } from './record-queries';
import { RecordStreams } from './record-streams';
import { RecordViews } from './record-views';
import { RecordWriter, type EventRelay } from './record-writer';
import type { RecordsContext } from './records-context';
import { RelatedLists } from './related-lists';
import { SuppressionList } from './suppression-list';

export interface RecordsDeps {
  repository: RecordsRepository;
  users: UserDirectory;
  relay: EventRelay;
  clock?: Clock;
  ids?: IdGenerator;
  /** PRIVACY_HASH_KEY: the suppression list's hashing key; unset, one kept in the store (application/suppression-list.ts). */
  privacyHashKey?: string;
  /** Bulk calls at once (bulk-lane.ts); 1 unless set. */
  bulkCallsAtOnce?: number;
  /** Where work the service does in the background (a large custom field's deletion) logs its failures; silent unless set. */
  logger?: Logger;
}

export interface RecordsResources {
  contacts: ContactsService;
  leads: LeadsService;
  accounts: AccountsService;
  opportunities: OpportunitiesService;
  /** One record of any kind by its kind's name. */
  anyRecords: AnyRecords;
  /** The import's batches (bulk work, in the bulk lane behind interactive calls). */
  contactBatches: ContactBatches;
  /** POST /api/{kind}/batch/ (bulk work, in the bulk lane). */
  recordBatches: RecordBatches;
  /** POST /api/{kind}/query/ and the filter language of every list. */
  queries: RecordQueries;
  /** Exports: every record of a query, from one snapshot. */
  streams: RecordStreams;
  /** GET /api/{kind}/aggregate/. */
  aggregates: RecordAggregates;
  merges: RecordMerges;
  /** Sources, tasks and activities. */
  related: RelatedLists;
  /** GET /api/audit-log/, histories; also the privacy operations' audit trail (index.ts). */
  auditLog: AuditLog;
  /** /api/settings/custom-fields/. */
  customFieldDefinitions: CustomFieldsService;
  /** What the privacy operations (person-export.ts, person-erasure.ts) share with the rest. */
  context: RecordsContext;
}

export function createRecordsResources(deps: RecordsDeps): RecordsResources {
  /** Batch creates, batch writes and large custom-field work, one at a time after the interactive calls waiting. */
  const bulk = new BulkLane(deps.bulkCallsAtOnce, (maxWaitMs) => deps.repository.store.readsSettled(maxWaitMs));
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? defaultIds;
  const suppressions = new SuppressionList(new SuppressionRepository(deps.repository.store), deps.privacyHashKey);
  const customFields = new CustomFieldRepository(deps.repository.store);
  const logger = deps.logger ?? createLogger('records', { level: 'silent' });
  const auditStaging = new AuditStaging(deps.repository.store, logger);
  const context: RecordsContext = {
    repo: deps.repository,
    customFields,
    users: deps.users,
    suppressions,
    writer: new RecordWriter(deps.repository, deps.relay, clock, ids, suppressions, customFields, auditStaging),
    auditStaging,
    views: new RecordViews(deps.repository, deps.users, customFields),
    clock,
    ids,
  };
  const kinds = {
    contacts: new ContactsService(context),
    leads: new LeadsService(context),
    accounts: new AccountsService(context),
    opportunities: new OpportunitiesService(context),
  };
  const anyRecords = new AnyRecords(kinds);
  const queries = new RecordQueries(context);
  return {
    ...kinds,
    anyRecords,
    contactBatches: new ContactBatches(context, bulk),
    recordBatches: new RecordBatches(context, bulk),
    queries,
    streams: new RecordStreams(context, queries),
    aggregates: new RecordAggregates(context),
    merges: new RecordMerges(context, anyRecords),
    related: new RelatedLists(context),
    auditLog: new AuditLog(context),
    customFieldDefinitions: new CustomFieldsService(context, bulk, logger),
    context,
  };
}
