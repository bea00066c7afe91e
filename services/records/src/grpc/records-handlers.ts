import type { CallContext, recordsV1, ServiceHandlers, UnaryHandler } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { ChangeFeed } from '../application/change-feed';
import { recordJson, type Paging, type RecordsService } from '../application/records-service';
import type { ListResult } from '../store/records-repository';
import type { AccountView, Caller, ContactView, LeadView } from '../application/views';
import type { MergeableType } from '../domain/record-merge';
import {
  accountMessage,
  activityMessage,
  auditEntryMessage,
  auditFiltersOf,
  contactMessage,
  customFieldMessage,
  leadMessage,
  opportunityMessage,
  optionsInput,
  aggregateMessage,
  sourceMessage,
  taskMessage,
  writeInput,
} from './proto-mapping';
import { batchWriteInput, batchWriteMessage } from './batch-mapping';
import { CONTACT_FIELDS, fieldNames } from '@crm/vocabulary';
import { recordStreamHandler } from './record-stream-handler';

/** The contact fields a CSV row carries (ContactRow). */
const IMPORTED_CONTACT_FIELDS = fieldNames(CONTACT_FIELDS, (field) => field.import !== undefined);

type M = recordsV1.RecordsServiceMethods;
/** One handler per rpc, typed from the generated method map (its string index signature left out). */
type Handlers = {
  [K in keyof M as string extends K ? never : K extends 'StreamRecords' ? never : K]: UnaryHandler<M[K]['request'], M[K]['response']>;
};

/** The caller as the gateway (or a calling service) set it in metadata; a call without a workspace is refused. */
export function callerOf(context: CallContext): Caller {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  const type = context.actorKind === 'user' || context.actorKind === 'api_key' ? context.actorKind : 'system';
  // A cause is a service's word about its own write: a user's or key's call never carries one.
  const cause = type === 'system' && context.cause ? context.cause : undefined;
  return {
    workspaceId: context.workspaceId,
    actor: { id: context.actorId || 'system', type },
    correlationId: context.requestId,
    ...(type === 'api_key' && context.apiKeyId ? { apiKeyId: context.apiKeyId } : {}),
    ...(cause ? { cause } : {}),
  };
}

function paging(r: { offset?: number; limit?: number; cursor?: string }): Paging {
  return { offset: r.offset, limit: r.limit, cursor: nonEmpty(r.cursor) };
}

/** A cursor page counts nothing: its total travels as 0, and the gateway leaves `count` out. */
function pageOf(page: ListResult<unknown>): { total: number; nextCursor: string } {
  return { total: page.total ?? 0, nextCursor: page.nextCursor ?? '' };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value ? value : undefined;
}

/** Translation only: proto ↔ the records service's calls. */
export function recordsHandlers(service: RecordsService, feed: ChangeFeed): ServiceHandlers {
  const merge = async (type: MergeableType, r: recordsV1.MergeRecordsRequest, c: CallContext) =>
    (await service.mergeRecords(callerOf(c), type, r.id, { mergeIds: r.mergeIds ?? [], winners: r.fields ?? {} })).record;
  const handlers: Handlers = {
    CreateContact: async (r, c) => ({
      contact: contactMessage(await service.createContact(callerOf(c), writeInput(r.contact, r.fieldMask, r.invalidFields, 'create'))),
    }),
    GetContact: async (r, c) => ({ contact: contactMessage(await service.getContact(callerOf(c), r.id)) }),
    UpdateContact: async (r, c) => ({
      contact: contactMessage(
        await service.updateContact(callerOf(c), r.id, {
          ...writeInput(r.contact, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteContact: async (r, c) => {
      await service.deleteContact(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListContacts: async (r, c) => {
      const page = await service.listContacts(callerOf(c), { ...contactFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), contacts: page.items.map(contactMessage) };
    },
    QueryRecords: async (r, c) => {
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
          const page = await service.queryRecords(callerOf(c), 'contact', query);
          return { ...empty, ...pageOf(page), contacts: page.items.map(contactMessage) };
        }
        case 'lead': {
          const page = await service.queryRecords(callerOf(c), 'lead', query);
          return { ...empty, ...pageOf(page), leads: page.items.map(leadMessage) };
        }
        case 'account': {
          const page = await service.queryRecords(callerOf(c), 'account', query);
          return { ...empty, ...pageOf(page), accounts: page.items.map(accountMessage) };
        }
        case 'opportunity': {
          const page = await service.queryRecords(callerOf(c), 'opportunity', query);
          return { ...empty, ...pageOf(page), opportunities: page.items.map(opportunityMessage) };
        }
        default:
          throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
      }
    },
    AggregateRecords: async (r, c) => {
      const input = { groupBy: nonEmpty(r.groupBy), metrics: nonEmpty(r.metrics) };
      const caller = callerOf(c);
      switch (r.recordType) {
        case 'contact':
          return aggregateMessage(await service.aggregateRecords(caller, 'contact', contactFiltersOf(listRequest(r.contacts)), input));
        case 'lead':
          return aggregateMessage(await service.aggregateRecords(caller, 'lead', leadFiltersOf(listRequest(r.leads)), input));
        case 'account':
          return aggregateMessage(await service.aggregateRecords(caller, 'account', accountFiltersOf(listRequest(r.accounts)), input));
        case 'opportunity':
          return aggregateMessage(
            await service.aggregateRecords(caller, 'opportunity', opportunityFiltersOf(listRequest(r.opportunities)), input),
          );
        default:
          throw DomainError.invalid('record_type must be contact, lead, account or opportunity.');
      }
    },
    BatchWriteRecords: async (r, c) => batchWriteMessage(await service.batchWriteRecords(callerOf(c), batchWriteInput(r))),
    BatchCreateContacts: async (r, c) => {
      const result = await service.batchCreateContacts(callerOf(c), {
        idempotencyKey: r.idempotencyKey,
        sourceUid: nonEmpty(r.sourceUid),
        importJobId: nonEmpty(r.importJobId),
        dryRun: r.dryRun,
        rows: r.rows.map((row) => {
          const cells = row as unknown as Record<string, string | string[]>;
          const body: Record<string, unknown> = {};
          // A row's imported fields, blank ones left out (the proto carries no presence).
          for (const field of IMPORTED_CONTACT_FIELDS) if (cells[field]?.length) body[field] = cells[field];
          if (row.customFields) body.customFields = row.customFields;
          return { row: row.row, body };
        }),
      });
      return {
        created: result.created,
        duplicates: result.duplicates,
        errors: result.errors,
        replayed: result.replayed,
      };
    },
    GetContactBatch: async (r, c) => service.contactBatch(callerOf(c), r.idempotencyKey),

    CreateLead: async (r, c) => ({
      lead: leadMessage(await service.createLead(callerOf(c), writeInput(r.lead, r.fieldMask, r.invalidFields, 'create'))),
    }),
    GetLead: async (r, c) => ({ lead: leadMessage(await service.getLead(callerOf(c), r.id)) }),
    UpdateLead: async (r, c) => ({
      lead: leadMessage(
        await service.updateLead(callerOf(c), r.id, {
          ...writeInput(r.lead, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteLead: async (r, c) => {
      await service.deleteLead(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListLeads: async (r, c) => {
      const page = await service.listLeads(callerOf(c), { ...leadFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), leads: page.items.map(leadMessage) };
    },
    ConvertLead: async (r, c) => {
      const { leadId, invalidFields, ...options } = r;
      const input = optionsInput(options, invalidFields);
      const result = await service.convertLead(callerOf(c), leadId, input);
      return {
        lead: leadMessage(result.lead),
        contact: contactMessage(result.contact),
        account: result.account ? accountMessage(result.account) : null,
        opportunity: result.opportunity ? opportunityMessage(result.opportunity) : null,
      };
    },
    MergeContact: async (r, c) => ({ contact: contactMessage((await merge('contact', r, c)) as ContactView) }),
    MergeLead: async (r, c) => ({ lead: leadMessage((await merge('lead', r, c)) as LeadView) }),
    MergeAccount: async (r, c) => ({ account: accountMessage((await merge('account', r, c)) as AccountView) }),

    CreateAccount: async (r, c) => ({
      account: accountMessage(await service.createAccount(callerOf(c), writeInput(r.account, r.fieldMask, r.invalidFields, 'create'))),
    }),
    GetAccount: async (r, c) => ({ account: accountMessage(await service.getAccount(callerOf(c), r.id)) }),
    UpdateAccount: async (r, c) => ({
      account: accountMessage(
        await service.updateAccount(callerOf(c), r.id, {
          ...writeInput(r.account, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteAccount: async (r, c) => {
      await service.deleteAccount(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListAccounts: async (r, c) => {
      const page = await service.listAccounts(callerOf(c), { ...accountFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), accounts: page.items.map(accountMessage) };
    },
    ListAccountContacts: async (r, c) => {
      const page = await service.listAccountContacts(callerOf(c), r.accountId, paging(r));
      return { ...pageOf(page), contacts: page.items.map(contactMessage) };
    },

    CreateOpportunity: async (r, c) => ({
      opportunity: opportunityMessage(
        await service.createOpportunity(callerOf(c), writeInput(r.opportunity, r.fieldMask, r.invalidFields, 'create')),
      ),
    }),
    GetOpportunity: async (r, c) => ({ opportunity: opportunityMessage(await service.getOpportunity(callerOf(c), r.id)) }),
    UpdateOpportunity: async (r, c) => ({
      opportunity: opportunityMessage(
        await service.updateOpportunity(callerOf(c), r.id, {
          ...writeInput(r.opportunity, r.updateMask, r.invalidFields, 'update'),
          expectedVersion: r.expectedVersion,
        }),
      ),
    }),
    DeleteOpportunity: async (r, c) => {
      await service.deleteOpportunity(callerOf(c), r.id, r.expectedVersion);
      return {};
    },
    ListOpportunities: async (r, c) => {
      const page = await service.listOpportunities(callerOf(c), { ...opportunityFiltersOf(r), ...paging(r) });
      return { ...pageOf(page), opportunities: page.items.map(opportunityMessage) };
    },

    CreateSource: async (r, c) => ({ source: sourceMessage(await service.createSource(callerOf(c), r.name)) }),
    GetSource: async (r, c) => ({ source: sourceMessage(await service.getSource(callerOf(c), r.uid)) }),
    ListSources: async (r, c) => {
      const page = await service.listSources(callerOf(c), paging(r));
      return { ...pageOf(page), sources: page.items.map(sourceMessage) };
    },

    CreateTask: async (r, c) => ({
      task: taskMessage(
        await service.createTask(callerOf(c), {
          name: r.name,
          dueDate: nonEmpty(r.dueDate),
          assignedTo: nonEmpty(r.assignedTo),
          relatedTo: r.relatedTo,
          status: nonEmpty(r.status),
        }),
      ),
    }),
    ListTasks: async (r, c) => {
      const page = await service.listTasks(callerOf(c), nonEmpty(r.relatedTo), paging(r));
      return { ...pageOf(page), tasks: page.items.map(taskMessage) };
    },
    ListAuditEntries: async (r, c) => {
      const caller = callerOf(c);
      const page = r.history
        ? await service.recordHistory(caller, r.recordKind, r.recordId, paging(r))
        : await service.listAuditEntries(caller, auditFiltersOf(r), paging(r));
      return { ...pageOf(page), entries: page.items.map(auditEntryMessage) };
    },
    ListActivities: async (r, c) => {
      const page = await service.listActivities(callerOf(c), nonEmpty(r.recordId), paging(r));
      return { ...pageOf(page), activities: page.items.map(activityMessage) };
    },

    GetRecord: async (r, c) => {
      const found = await service.getRecord(callerOf(c), r.recordType, r.id);
      return {
        recordType: found.type,
        contact: found.type === 'contact' ? contactMessage(found.record) : null,
        lead: found.type === 'lead' ? leadMessage(found.record) : null,
        account: found.type === 'account' ? accountMessage(found.record) : null,
        opportunity: found.type === 'opportunity' ? opportunityMessage(found.record) : null,
        fieldsJson: recordJson(found),
      };
    },
    ListEvents: async (r, c) => {
      const page = await feed.list(callerOf(c).workspaceId, {
        after: nonEmpty(r.after),
        types: nonEmpty(r.types),
        limit: nonEmpty(r.limit),
      });
      return { events: page.results.map((envelope) => JSON.stringify(envelope)), nextCursor: page.nextCursor };
    },
    ListCustomFields: async (r, c) => {
      const page = await service.customFieldDefinitions.list(callerOf(c), nonEmpty(r.kind), paging(r));
      return { total: page.total ?? 0, fields: page.items.map(customFieldMessage) };
    },
    CreateCustomField: async (r, c) => ({
      field: customFieldMessage(
        await service.customFieldDefinitions.create(callerOf(c), writeInput(r.field, r.fieldMask, r.invalidFields, 'create')),
      ),
    }),
    GetCustomField: async (r, c) => ({ field: customFieldMessage(await service.customFieldDefinitions.get(callerOf(c), r.id)) }),
    UpdateCustomField: async (r, c) => ({
      field: customFieldMessage(
        await service.customFieldDefinitions.update(callerOf(c), r.id, writeInput(r.field, r.updateMask, r.invalidFields, 'update')),
      ),
    }),
    DeleteCustomField: async (r, c) => {
      await service.customFieldDefinitions.delete(callerOf(c), r.id);
      return {};
    },
  };
  return { ...(handlers as ServiceHandlers), StreamRecords: recordStreamHandler(service, callerOf) };
}

/** A list request left out of the call is a list with no filters. */
function listRequest<T extends object>(r: T | null | undefined): T {
  return (r ?? {}) as T;
}

function contactFiltersOf(r: recordsV1.ListContactsRequest) {
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

function leadFiltersOf(r: recordsV1.ListLeadsRequest) {
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

function accountFiltersOf(r: recordsV1.ListAccountsRequest) {
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

function opportunityFiltersOf(r: recordsV1.ListOpportunitiesRequest) {
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
