/**
 * The records service's operations, one file per resource behind this facade: each reads the
 * documents a rule needs, applies the rule from domain/, and writes the change, its audit-log
 * activity and its outbox events in one commit through the one writer (record-writer.ts).
 * No transport here (grpc/ translates) and no query syntax (store/ owns it).
 */
import { createLogger, DomainError, type Logger } from '@crm/observability';
import { systemClock, type Clock } from '@crm/vocabulary';
import { defaultIds, type IdGenerator } from '../domain/ids';
import type { ActivityDocument, SourceDocument, TaskDocument } from '../domain/model';
import type { MergeableType, MergeRequest } from '../domain/record-merge';
import type { UserDirectory } from '../adapters/user-directory';
import type { BatchResultDocument } from '../store/collections';
import type { ListResult, RecordsRepository } from '../store/records-repository';
import { AccountsService, type AccountFilters } from './accounts-service';
import { BulkLane } from './bulk-lane';
import { ContactBatches, type BatchCreateInput, type BatchCreateResult } from './contact-batches';
import { ContactsService, type ContactFilters } from './contacts-service';
import { LeadsService, type ConversionResult, type LeadFilters } from './leads-service';
import { OpportunitiesService, type OpportunityFilters } from './opportunities-service';
import { RecordBatches, type BatchWriteInput, type BatchWriteResult } from './record-batches';
import { RecordAggregates, type AggregateInput, type AggregateView, type ListFiltersByType } from './record-aggregates';
import { RecordMerges } from './record-merges';
import { RecordQueries, type RecordQuery, type RecordViewsByType } from './record-queries';
import { RecordStreams, type RecordStreamPart, type RecordStreamQuery } from './record-streams';
import { RecordViews } from './record-views';
import { RecordWriter, type EventRelay } from './record-writer';
import type { RecordsContext } from './records-context';
import { AuditLog, type AuditEntryView } from './audit-log';
import type { AuditFilters } from '../store/audit-repository';
import { RelatedLists, type TaskInput } from './related-lists';
import { SuppressionList } from './suppression-list';
import { SuppressionRepository } from '../store/suppression-repository';
import { CustomFieldRepository } from '../store/custom-field-repository';
import { CustomFieldsService } from './custom-fields-service';
import type { AccountView, AnyRecordView, Caller, ContactView, LeadView, OpportunityView, Paging, WriteInput } from './views';

export type { AccountFilters } from './accounts-service';
export type { BatchCreateInput, BatchCreateResult, ContactRowInput } from './contact-batches';
export type { ContactFilters } from './contacts-service';
export type { ConversionResult, LeadFilters } from './leads-service';
export type { OpportunityFilters } from './opportunities-service';
export { recordJson } from './record-views';
export type { RecordQuery, RecordViewsByType } from './record-queries';
export type { AggregateInput, AggregateView, ListFiltersByType } from './record-aggregates';
export type { BatchRecordInput, BatchRecordResult, BatchWriteInput, BatchWriteResult } from './record-batches';
export type { EventRelay } from './record-writer';
export type { AnyRecordView, Paging } from './views';

export interface RecordsServiceDeps {
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

export class RecordsService {
  private readonly contacts: ContactsService;
  private readonly batches: ContactBatches;
  /** Batch creates and batch writes, one at a time after the interactive calls waiting (bulk-lane.ts). */
  private readonly bulk: BulkLane;
  private readonly leads: LeadsService;
  private readonly accounts: AccountsService;
  private readonly opportunities: OpportunitiesService;
  private readonly merges: RecordMerges;
  private readonly related: RelatedLists;
  private readonly queries: RecordQueries;
  private readonly streams: RecordStreams;
  private readonly aggregates: RecordAggregates;
  private readonly recordBatches: RecordBatches;
  /** /api/settings/custom-fields/ (custom-fields-service.ts). */
  readonly customFieldDefinitions: CustomFieldsService;
  /** The audit log's reads; also the privacy operations' audit trail (index.ts). */
  readonly auditLog: AuditLog;

  constructor(deps: RecordsServiceDeps) {
    this.bulk = new BulkLane(deps.bulkCallsAtOnce, (maxWaitMs) => deps.repository.store.readsSettled(maxWaitMs));
    const clock = deps.clock ?? systemClock;
    const ids = deps.ids ?? defaultIds;
    const suppressions = new SuppressionList(new SuppressionRepository(deps.repository.store), deps.privacyHashKey);
    const customFields = new CustomFieldRepository(deps.repository.store);
    const context: RecordsContext = {
      repo: deps.repository,
      customFields,
      users: deps.users,
      suppressions,
      writer: new RecordWriter(deps.repository, deps.relay, clock, ids, suppressions, customFields),
      views: new RecordViews(deps.repository, deps.users, customFields),
      clock,
      ids,
    };
    this.contacts = new ContactsService(context);
    this.batches = new ContactBatches(context);
    this.leads = new LeadsService(context);
    this.accounts = new AccountsService(context);
    this.opportunities = new OpportunitiesService(context);
    this.merges = new RecordMerges(context);
    this.related = new RelatedLists(context);
    this.queries = new RecordQueries(context);
    this.streams = new RecordStreams(context, this.queries);
    this.aggregates = new RecordAggregates(context);
    this.recordBatches = new RecordBatches(context);
    this.auditLog = new AuditLog(context);
    this.customFieldDefinitions = new CustomFieldsService(context, this.bulk, deps.logger ?? createLogger('records', { level: 'silent' }));
    this.context = context;
  }

  /** What the privacy operations (person-export.ts, person-erasure.ts) share with the rest. */
  readonly context: RecordsContext;

  createContact(caller: Caller, input: WriteInput): Promise<ContactView> {
    return this.contacts.create(caller, input);
  }
  getContact(caller: Caller, id: string): Promise<ContactView> {
    return this.contacts.get(caller, id);
  }
  updateContact(caller: Caller, id: string, input: WriteInput): Promise<ContactView> {
    return this.contacts.update(caller, id, input);
  }
  deleteContact(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    return this.contacts.delete(caller, id, expectedVersion);
  }
  /** POST /api/{kind}/query/: the filter language over one kind's list, counted on every page. */
  queryRecords<T extends keyof RecordViewsByType>(caller: Caller, type: T, query: RecordQuery): Promise<ListResult<RecordViewsByType[T]>> {
    return this.queries.query(caller, type, query);
  }
  /** For exports: every record of a query, from one snapshot (record-streams.ts). */
  streamRecords<T extends keyof RecordViewsByType>(caller: Caller, type: T, query: RecordStreamQuery): AsyncGenerator<RecordStreamPart<T>> {
    return this.streams.stream(caller, type, query);
  }
  /** GET /api/{kind}/aggregate/: groups and metrics of one kind's list, computed by the store. */
  aggregateRecords<T extends keyof ListFiltersByType>(
    caller: Caller,
    type: T,
    filters: ListFiltersByType[T],
    input: AggregateInput,
  ): Promise<AggregateView> {
    return this.aggregates.aggregate(caller, type, filters, input);
  }
  /** GET /api/audit-log/ (admins: the gateway checks). */
  listAuditEntries(caller: Caller, filters: AuditFilters, paging: Paging): Promise<ListResult<AuditEntryView>> {
    return this.auditLog.list(caller, filters, paging);
  }
  /** GET /api/{kind}/{id}/history/. */
  recordHistory(caller: Caller, recordKind: string, recordId: string, paging: Paging): Promise<ListResult<AuditEntryView>> {
    return this.auditLog.history(caller, recordKind, recordId, paging);
  }
  /** POST /api/{kind}/batch/: creates, updates or upserts of one kind, each as a single write would, in one commit. */
  batchWriteRecords(caller: Caller, input: BatchWriteInput): Promise<BatchWriteResult> {
    return this.bulk.run(() => this.recordBatches.write(caller, input));
  }
  listContacts(caller: Caller, filters: ContactFilters): Promise<ListResult<ContactView>> {
    return this.contacts.list(caller, filters);
  }
  listAccountContacts(caller: Caller, accountId: string, paging: Paging = {}): Promise<ListResult<ContactView>> {
    return this.contacts.listOfAccount(caller, accountId, paging);
  }
  /** The import's batches: bulk work, so in the bulk lane behind interactive calls. */
  batchCreateContacts(caller: Caller, input: BatchCreateInput): Promise<BatchCreateResult> {
    return this.bulk.run(() => this.batches.create(caller, input));
  }
  contactBatch(caller: Caller, idempotencyKey: string): Promise<BatchResultDocument['result']> {
    return this.batches.get(caller, idempotencyKey);
  }

  createLead(caller: Caller, input: WriteInput): Promise<LeadView> {
    return this.leads.create(caller, input);
  }
  getLead(caller: Caller, id: string): Promise<LeadView> {
    return this.leads.get(caller, id);
  }
  updateLead(caller: Caller, id: string, input: WriteInput): Promise<LeadView> {
    return this.leads.update(caller, id, input);
  }
  deleteLead(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    return this.leads.delete(caller, id, expectedVersion);
  }
  listLeads(caller: Caller, filters: LeadFilters): Promise<ListResult<LeadView>> {
    return this.leads.list(caller, filters);
  }
  convertLead(caller: Caller, leadId: string, input: WriteInput): Promise<ConversionResult> {
    return this.leads.convert(caller, leadId, input);
  }

  createAccount(caller: Caller, input: WriteInput): Promise<AccountView> {
    return this.accounts.create(caller, input);
  }
  getAccount(caller: Caller, id: string): Promise<AccountView> {
    return this.accounts.get(caller, id);
  }
  updateAccount(caller: Caller, id: string, input: WriteInput): Promise<AccountView> {
    return this.accounts.update(caller, id, input);
  }
  deleteAccount(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    return this.accounts.delete(caller, id, expectedVersion);
  }
  listAccounts(caller: Caller, filters: AccountFilters): Promise<ListResult<AccountView>> {
    return this.accounts.list(caller, filters);
  }

  createOpportunity(caller: Caller, input: WriteInput): Promise<OpportunityView> {
    return this.opportunities.create(caller, input);
  }
  getOpportunity(caller: Caller, id: string): Promise<OpportunityView> {
    return this.opportunities.get(caller, id);
  }
  updateOpportunity(caller: Caller, id: string, input: WriteInput): Promise<OpportunityView> {
    return this.opportunities.update(caller, id, input);
  }
  deleteOpportunity(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    return this.opportunities.delete(caller, id, expectedVersion);
  }
  listOpportunities(caller: Caller, filters: OpportunityFilters): Promise<ListResult<OpportunityView>> {
    return this.opportunities.list(caller, filters);
  }

  createSource(caller: Caller, name: string): Promise<SourceDocument> {
    return this.related.createSource(caller, name);
  }
  getSource(caller: Caller, uid: string): Promise<SourceDocument> {
    return this.related.getSource(caller, uid);
  }
  listSources(caller: Caller, paging: Paging = {}): Promise<ListResult<SourceDocument>> {
    return this.related.listSources(caller, paging);
  }
  createTask(caller: Caller, input: TaskInput): Promise<TaskDocument> {
    return this.related.createTask(caller, input);
  }
  listTasks(caller: Caller, relatedTo?: string, paging: Paging = {}): Promise<ListResult<TaskDocument>> {
    return this.related.listTasks(caller, relatedTo, paging);
  }
  listActivities(caller: Caller, recordId?: string, paging: Paging = {}): Promise<ListResult<ActivityDocument>> {
    return this.related.listActivities(caller, recordId, paging);
  }

  /** Merges duplicates into the survivor (record-merges.ts) and answers the survivor as it now is. */
  async mergeRecords(caller: Caller, type: MergeableType, id: string, request: MergeRequest): Promise<AnyRecordView> {
    await this.merges.merge(caller, type, id, request);
    return this.getRecord(caller, type, id);
  }

  /** One record of any kind, for automation's conditions. */
  async getRecord(caller: Caller, type: string, id: string): Promise<AnyRecordView> {
    switch (type) {
      case 'contact':
        return { type, record: await this.getContact(caller, id) };
      case 'lead':
        return { type, record: await this.getLead(caller, id) };
      case 'account':
        return { type, record: await this.getAccount(caller, id) };
      case 'opportunity':
        return { type, record: await this.getOpportunity(caller, id) };
      default:
        throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
    }
  }
}
