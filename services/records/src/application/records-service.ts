/**
 * The records service's operations: reads the documents a rule needs, applies the rule from
 * domain/, and writes the change, its audit-log activity and its outbox events in one commit.
 * No transport here (grpc/ translates) and no query syntax (store/ owns it).
 */
import { createHash } from 'node:crypto';
import { DomainError } from '@crm/observability';
import { StoreError, type Condition, type WriteOp } from '@crm/store';
import { accountChanges, newAccount, ACCOUNT_FIELDS } from '../domain/account-rules';
import { timestamp, systemClock, type Clock, isCalendarDate } from '../domain/clock';
import { contactChanges, newContact, CONTACT_FIELDS } from '../domain/contact-rules';
import {
  accountCreated,
  contactCreated,
  contactsCreated,
  leadCreated,
  leadEvents,
  opportunityCreated,
  opportunityEvents,
  recordDeleted,
  recordsMerged,
  recordUpdated,
  type DomainEvent,
} from '../domain/events';
import {
  FieldErrorList,
  LIMITS,
  MESSAGES,
  NO_REFERENCES,
  referencedIds,
  type FieldTable,
  type KnownReferences,
} from '../domain/field-rules';
import { defaultIds, ID_PREFIX, newSourceUid, type IdGenerator } from '../domain/ids';
import { ALREADY_CONVERTED, planConversion } from '../domain/lead-conversion';
import { leadChanges, newLead, LEAD_FIELDS } from '../domain/lead-rules';
import * as lists from '../domain/list-rules';
import {
  TASK_STATUSES,
  type AccountDocument,
  type ActivityAction,
  type ActivityDocument,
  type ContactDocument,
  type LeadDocument,
  type OpportunityDocument,
  type RecordType,
  type SourceDocument,
  type TaskDocument,
} from '../domain/model';
import { newOpportunity, opportunityChanges, OPPORTUNITY_FIELDS } from '../domain/opportunity-rules';
import { checkMergedFound, checkMergeList, mergedBody, type MergeableType, type MergeRequest } from '../domain/record-merge';
import { searchNeedle } from '../domain/search-text';
import { requireVersion, staleVersion, versionOf } from '../domain/record-version';
import { publicRecord } from '../domain/representation';
import { workspaceMembers, type UserDirectory } from '../read-models/user-directory';
import {
  accounts,
  activities,
  batchResults,
  contacts,
  leads,
  notes,
  opportunities,
  outbox,
  sources,
  tasks,
  type BatchResultDocument,
  type OutboxDocument,
} from '../store/collections';
import type { ListResult, RecordsRepository } from '../store/records-repository';
import type { AccountView, Caller, ContactView, LeadView, OpportunityView, WriteInput } from './views';
import { captureTraceContext } from '@crm/telemetry';

/** Where committed events go next: the outbox relay. */
export interface EventRelay {
  register(workspaceId: string): Promise<void>;
  poke(workspaceId: string): void;
}

export interface RecordsServiceDeps {
  repository: RecordsRepository;
  users: UserDirectory;
  relay: EventRelay;
  clock?: Clock;
  ids?: IdGenerator;
}

/** Paging of a list: `offset` and `limit`, or a cursor from an earlier page's `nextCursor`. */
export interface Paging {
  offset?: number;
  limit?: number;
  cursor?: string;
}

export interface ContactFilters {
  cursor?: string;
  stage?: string;
  assignedTo?: string;
  search?: string;
  createdAfter?: string;
  createdBefore?: string;
  tags?: string[];
  ordering?: string;
  offset?: number;
  limit?: number;
}

export interface LeadFilters {
  cursor?: string;
  status?: string;
  source?: string;
  assignedTo?: string;
  search?: string;
  createdAfter?: string;
  createdBefore?: string;
  ordering?: string;
  offset?: number;
  limit?: number;
}

export interface AccountFilters {
  cursor?: string;
  stage?: string;
  industry?: string;
  assignedTo?: string;
  search?: string;
  ordering?: string;
  offset?: number;
  limit?: number;
}

export interface OpportunityFilters {
  cursor?: string;
  stage?: string;
  accountId?: string;
  assignedTo?: string;
  closeDateAfter?: string;
  closeDateBefore?: string;
  valueMin?: string;
  valueMax?: string;
  search?: string;
  ordering?: string;
  offset?: number;
  limit?: number;
}

export interface ConversionResult {
  lead: LeadView;
  contact: ContactView;
  account: AccountView | null;
  opportunity: OpportunityView | null;
}

export interface ContactRowInput {
  row: number;
  body: Record<string, unknown>;
}

export interface BatchCreateInput {
  idempotencyKey: string;
  rows: ContactRowInput[];
  sourceUid?: string;
  importJobId?: string;
}

export type BatchCreateResult = BatchResultDocument['result'] & { replayed: boolean };

export type AnyRecordView =
  | { type: 'contact'; record: ContactView }
  | { type: 'lead'; record: LeadView }
  | { type: 'account'; record: AccountView }
  | { type: 'opportunity'; record: OpportunityView };

const CONVERSION_CONFLICT_RETRIES = 3;

type MergeableDocument = ContactDocument | LeadDocument | AccountDocument;

/** What a merge needs of each kind: where it is stored, its writable fields, and its update rules. */
const MERGEABLE: Record<
  MergeableType,
  {
    collection: WriteOp['collection'];
    fields: FieldTable;
    changes(current: MergeableDocument, input: { body: Record<string, unknown>; references: KnownReferences }, now: string): object;
  }
> = {
  contact: { collection: contacts, fields: CONTACT_FIELDS, changes: (c, input, now) => contactChanges(c as ContactDocument, input, now) },
  lead: { collection: leads, fields: LEAD_FIELDS, changes: (c, input, now) => leadChanges(c as LeadDocument, input, now) },
  account: { collection: accounts, fields: ACCOUNT_FIELDS, changes: (c, input, now) => accountChanges(c as AccountDocument, input, now) },
};

export class RecordsService {
  private readonly repo: RecordsRepository;
  private readonly users: UserDirectory;
  private readonly relay: EventRelay;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;

  constructor(deps: RecordsServiceDeps) {
    this.repo = deps.repository;
    this.users = deps.users;
    this.relay = deps.relay;
    this.clock = deps.clock ?? systemClock;
    this.ids = deps.ids ?? defaultIds;
  }

  // ------------------------------------------------------------------ contacts

  async createContact(caller: Caller, input: WriteInput): Promise<ContactView> {
    const references = await this.references(caller, input.body, CONTACT_FIELDS);
    const now = this.now();
    const contact = newContact({ ...input, references }, this.ids(ID_PREFIX.contact), caller.workspaceId, now);
    await this.write(
      caller,
      [{ kind: 'insert', collection: contacts, document: { ...contact } }, this.activity(caller, 'created', 'contact', contact.id, now)],
      [contactCreated(contact)],
    );
    return (await this.contactViews(caller.workspaceId, [contact], true))[0]!;
  }

  async getContact(caller: Caller, id: string): Promise<ContactView> {
    const contact = await this.found(this.repo.get(caller.workspaceId, contacts, id));
    return (await this.contactViews(caller.workspaceId, [contact], true))[0]!;
  }

  async updateContact(caller: Caller, id: string, input: WriteInput): Promise<ContactView> {
    const current = await this.found(this.repo.get(caller.workspaceId, contacts, id));
    requireVersion(current, input.expectedVersion);
    const references = await this.references(caller, input.body, CONTACT_FIELDS);
    const now = this.now();
    const changes = contactChanges(current, { ...input, references }, now);
    const after = { ...current, ...changes, version: versionOf(current) + 1 };
    await this.conditional(input.expectedVersion, () =>
      this.write(
        caller,
        [this.update(contacts, id, changes, [], input.expectedVersion), this.activity(caller, 'updated', 'contact', id, now)],
        [recordUpdated('contact', after)],
      ),
    );
    return (await this.contactViews(caller.workspaceId, [after], true))[0]!;
  }

  /** The contact goes with its notes and tasks, and leaves the opportunities it was on. */
  async deleteContact(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const current = await this.found(this.repo.get(caller.workspaceId, contacts, id));
    requireVersion(current, expectedVersion);
    const linked = await this.repo.in(caller.workspaceId).find(opportunities, { where: [{ field: 'contactIds', op: 'has', value: id }] });
    const ops: WriteOp[] = [
      ...this.versionGuard(contacts, id, expectedVersion),
      { kind: 'delete', collection: contacts, id },
      ...this.dependentsOf(id),
      ...linked.map((o): WriteOp => ({
        kind: 'update',
        collection: opportunities,
        id: o.id,
        change: { set: { contactIds: o.contactIds.filter((c) => c !== id) }, inc: { version: 1 } },
        required: false,
      })),
      this.activity(caller, 'deleted', 'contact', id, this.now()),
    ];
    await this.conditional(expectedVersion, () => this.write(caller, ops, [recordDeleted('contact', current)]));
  }

  async listContacts(caller: Caller, filters: ContactFilters): Promise<ListResult<ContactView>> {
    const where: Condition[] = [];
    const stage = lists.choiceFilter('stage', filters.stage, 'contactStage');
    if (stage) where.push({ field: 'stage', op: 'eq', value: stage });
    if (filters.assignedTo) where.push({ field: 'assignedTo', op: 'eq', value: filters.assignedTo });
    const after = lists.timestampFilter('createdAfter', filters.createdAfter);
    if (after) where.push({ field: 'createdAt', op: 'gte', value: after });
    const before = lists.timestampFilter('createdBefore', filters.createdBefore);
    if (before) where.push({ field: 'createdAt', op: 'lte', value: before });
    for (const tag of filters.tags ?? []) if (tag.trim()) where.push({ field: 'tags', op: 'has', value: tag.trim() });
    const result = await this.repo.list(caller.workspaceId, contacts, {
      where,
      search: this.searchFor(filters.search),
      ordering: lists.ordering('contact', filters.ordering),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return { total: result.total, items: await this.contactViews(caller.workspaceId, result.items, false), nextCursor: result.nextCursor };
  }

  async listAccountContacts(caller: Caller, accountId: string, paging: Paging = {}): Promise<ListResult<ContactView>> {
    await this.found(this.repo.get(caller.workspaceId, accounts, accountId));
    const result = await this.repo.list(caller.workspaceId, contacts, {
      where: [{ field: 'accountId', op: 'eq', value: accountId }],
      ordering: { field: 'createdAt', direction: 'desc' },
      page: lists.page(paging.offset, paging.limit),
      cursor: paging.cursor,
    });
    return { ...result, items: await this.contactViews(caller.workspaceId, result.items, false) };
  }

  /**
   * Creates a batch of contacts once per idempotency key: the answer is stored in the same commit
   * as the contacts, so a retry (even a concurrent one) gets the first answer and creates nothing.
   * A row whose email (case-insensitive) already belongs to a contact of the workspace, or to an
   * earlier row of the batch, is reported as a duplicate and not created.
   */
  async batchCreateContacts(caller: Caller, input: BatchCreateInput): Promise<BatchCreateResult> {
    if (!input.idempotencyKey) throw DomainError.invalid('idempotency_key is required.');
    const batchId = batchIdOf(caller.workspaceId, input.idempotencyKey);
    const stored = await this.repo.batchResult(caller.workspaceId, batchId);
    if (stored) return { ...stored.result, replayed: true };
    let sourceName: string | null = null;
    if (input.sourceUid) sourceName = (await this.found(this.repo.get(caller.workspaceId, sources, input.sourceUid))).name;

    const now = this.now();
    const result: BatchResultDocument['result'] = { created: [], duplicates: [], errors: [] };
    const valid: { row: number; contact: ContactDocument }[] = [];
    for (const row of input.rows) {
      try {
        const contact = newContact({ body: row.body, references: NO_REFERENCES }, this.ids(ID_PREFIX.contact), caller.workspaceId, now);
        contact.source = sourceName;
        contact.importJobId = input.importJobId || null;
        valid.push({ row: row.row, contact });
      } catch (error) {
        if (!(error instanceof DomainError) || !error.fields) throw error;
        const message = Object.entries(error.fields)
          .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
          .join('; ');
        result.errors.push({ row: row.row, message });
      }
    }
    const keys = [...new Set(valid.map((v) => v.contact.emailKey))];
    const existing = new Map<string, ContactDocument>();
    for (let i = 0; i < keys.length; i += 500) {
      for (const contact of await this.repo.contactsByEmailKeys(caller.workspaceId, keys.slice(i, i + 500))) {
        if (!existing.has(contact.emailKey)) existing.set(contact.emailKey, contact);
      }
    }
    const seen = new Set<string>();
    const ops: WriteOp[] = [];
    const createdContacts: ContactDocument[] = [];
    for (const { row, contact } of valid) {
      const match = existing.get(contact.emailKey);
      if (match) {
        const sameImport = Boolean(input.importJobId) && match.importJobId === input.importJobId;
        result.duplicates.push({ row, email: contact.email, existingContactId: match.id, sameImport });
      } else if (seen.has(contact.emailKey)) {
        result.duplicates.push({ row, email: contact.email, existingContactId: '', sameImport: true });
      } else {
        seen.add(contact.emailKey);
        result.created.push({ row, contactId: contact.id });
        ops.push(
          { kind: 'insert', collection: contacts, document: { ...contact } },
          this.activity(caller, 'created', 'contact', contact.id, now),
        );
        createdContacts.push(contact);
      }
    }
    const events = createdContacts.length > 0 ? [contactsCreated(caller.workspaceId, createdContacts)] : [];
    const record: BatchResultDocument = {
      id: batchId,
      workspaceId: caller.workspaceId,
      idempotencyKey: input.idempotencyKey,
      result,
      createdAt: now,
    };
    ops.push({ kind: 'insert', collection: batchResults, document: { ...record } });
    try {
      await this.write(caller, ops, events);
    } catch (error) {
      // A concurrent run of the same batch committed first: answer what it stored.
      if (error instanceof StoreError && error.code === 'duplicate') {
        const winner = await this.repo.batchResult(caller.workspaceId, batchId);
        if (winner) return { ...winner.result, replayed: true };
      }
      throw error;
    }
    return { ...result, replayed: false };
  }

  /** The stored answer of the batch create with this key; not_found when none has committed (so nothing of it exists). */
  async contactBatch(caller: Caller, idempotencyKey: string): Promise<BatchResultDocument['result']> {
    if (!idempotencyKey) throw DomainError.invalid('idempotency_key is required.');
    const stored = await this.repo.batchResult(caller.workspaceId, batchIdOf(caller.workspaceId, idempotencyKey));
    if (!stored) throw DomainError.notFound();
    return stored.result;
  }

  // ------------------------------------------------------------------ leads

  async createLead(caller: Caller, input: WriteInput): Promise<LeadView> {
    const references = await this.references(caller, input.body, LEAD_FIELDS);
    const now = this.now();
    const lead = newLead({ ...input, references }, this.ids(ID_PREFIX.lead), caller.workspaceId, now);
    await this.write(
      caller,
      [{ kind: 'insert', collection: leads, document: { ...lead } }, this.activity(caller, 'created', 'lead', lead.id, now)],
      [leadCreated(lead)],
    );
    return (await this.leadViews(caller.workspaceId, [lead], true))[0]!;
  }

  async getLead(caller: Caller, id: string): Promise<LeadView> {
    const lead = await this.found(this.repo.get(caller.workspaceId, leads, id));
    return (await this.leadViews(caller.workspaceId, [lead], true))[0]!;
  }

  async updateLead(caller: Caller, id: string, input: WriteInput): Promise<LeadView> {
    const references = await this.references(caller, input.body, LEAD_FIELDS);
    for (let attempt = 0; ; attempt++) {
      const current = await this.found(this.repo.get(caller.workspaceId, leads, id));
      requireVersion(current, input.expectedVersion);
      const now = this.now();
      const changes = leadChanges(current, { ...input, references }, now);
      const after = { ...current, ...changes, version: versionOf(current) + 1 };
      try {
        // Conditional on the status read, so the status-change event names the right previous status.
        await this.write(
          caller,
          [
            this.update(leads, id, changes, [{ field: 'status', op: 'eq', value: current.status }], input.expectedVersion),
            this.activity(caller, 'updated', 'lead', id, now),
          ],
          [...leadEvents(current, after), recordUpdated('lead', after)],
        );
      } catch (error) {
        if (error instanceof StoreError && error.code === 'conflict' && attempt < CONVERSION_CONFLICT_RETRIES) continue;
        throw error;
      }
      return (await this.leadViews(caller.workspaceId, [after], true))[0]!;
    }
  }

  async deleteLead(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const current = await this.found(this.repo.get(caller.workspaceId, leads, id));
    requireVersion(current, expectedVersion);
    await this.conditional(expectedVersion, () =>
      this.write(
        caller,
        [
          ...this.versionGuard(leads, id, expectedVersion),
          { kind: 'delete', collection: leads, id },
          ...this.dependentsOf(id),
          this.activity(caller, 'deleted', 'lead', id, this.now()),
        ],
        [recordDeleted('lead', current)],
      ),
    );
  }

  async listLeads(caller: Caller, filters: LeadFilters): Promise<ListResult<LeadView>> {
    const where: Condition[] = [];
    const status = lists.choiceFilter('status', filters.status, 'leadStatus');
    if (status) where.push({ field: 'status', op: 'eq', value: status });
    if (filters.source) where.push({ field: 'source', op: 'eq', value: filters.source });
    if (filters.assignedTo) where.push({ field: 'assignedTo', op: 'eq', value: filters.assignedTo });
    const after = lists.timestampFilter('createdAfter', filters.createdAfter);
    if (after) where.push({ field: 'createdAt', op: 'gte', value: after });
    const before = lists.timestampFilter('createdBefore', filters.createdBefore);
    if (before) where.push({ field: 'createdAt', op: 'lte', value: before });
    const result = await this.repo.list(caller.workspaceId, leads, {
      where,
      search: this.searchFor(filters.search),
      ordering: lists.ordering('lead', filters.ordering),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return { total: result.total, items: await this.leadViews(caller.workspaceId, result.items, false), nextCursor: result.nextCursor };
  }

  /**
   * Converts a lead in one commit: the lead's update is conditional on it not being converted yet,
   * so of two concurrent conversions exactly one commits; the other answers "already converted".
   */
  async convertLead(caller: Caller, leadId: string, input: WriteInput): Promise<ConversionResult> {
    const lead = await this.found(this.repo.get(caller.workspaceId, leads, leadId));
    const nowDate = this.clock();
    const plan = planConversion(lead, input.body, this.ids, nowDate, input.earlierErrors);
    const now = timestamp(nowDate);
    const ops: WriteOp[] = [
      this.update(leads, lead.id, plan.leadChange, [{ field: 'status', op: 'ne', value: 'converted' }]),
      this.activity(caller, 'converted', 'lead', lead.id, now),
      { kind: 'insert', collection: contacts, document: { ...plan.contact } },
      this.activity(caller, 'created', 'contact', plan.contact.id, now),
    ];
    const convertedLead: LeadDocument = { ...lead, ...plan.leadChange };
    const events: DomainEvent[] = [...leadEvents(lead, convertedLead), recordUpdated('lead', convertedLead), contactCreated(plan.contact)];
    if (plan.account) {
      ops.push(
        { kind: 'insert', collection: accounts, document: { ...plan.account } },
        this.activity(caller, 'created', 'account', plan.account.id, now),
      );
    }
    if (plan.opportunity) {
      ops.push(
        { kind: 'insert', collection: opportunities, document: { ...plan.opportunity } },
        this.activity(caller, 'created', 'opportunity', plan.opportunity.id, now),
      );
      events.push(...opportunityEvents(null, plan.opportunity));
    }
    try {
      await this.write(caller, ops, events);
    } catch (error) {
      if (error instanceof StoreError && error.code === 'conflict') throw DomainError.invalid(ALREADY_CONVERTED);
      throw error;
    }
    const [leadView] = await this.leadViews(caller.workspaceId, [convertedLead], true);
    const [contactView] = await this.contactViews(caller.workspaceId, [plan.contact], true);
    const accountView = plan.account ? (await this.accountViews(caller.workspaceId, [plan.account], true))[0]! : null;
    const opportunityView = plan.opportunity ? (await this.opportunityViews(caller.workspaceId, [plan.opportunity], true))[0]! : null;
    return { lead: leadView!, contact: contactView!, account: accountView, opportunity: opportunityView };
  }

  // ------------------------------------------------------------------ accounts

  async createAccount(caller: Caller, input: WriteInput): Promise<AccountView> {
    const references = await this.references(caller, input.body, ACCOUNT_FIELDS);
    const now = this.now();
    const account = newAccount({ ...input, references }, this.ids(ID_PREFIX.account), caller.workspaceId, now);
    await this.write(
      caller,
      [{ kind: 'insert', collection: accounts, document: { ...account } }, this.activity(caller, 'created', 'account', account.id, now)],
      [accountCreated(account)],
    );
    return (await this.accountViews(caller.workspaceId, [account], true))[0]!;
  }

  async getAccount(caller: Caller, id: string): Promise<AccountView> {
    const account = await this.found(this.repo.get(caller.workspaceId, accounts, id));
    return (await this.accountViews(caller.workspaceId, [account], true))[0]!;
  }

  async updateAccount(caller: Caller, id: string, input: WriteInput): Promise<AccountView> {
    const current = await this.found(this.repo.get(caller.workspaceId, accounts, id));
    requireVersion(current, input.expectedVersion);
    const references = await this.references(caller, input.body, ACCOUNT_FIELDS);
    const now = this.now();
    const changes = accountChanges(current, { ...input, references }, now);
    const after = { ...current, ...changes, version: versionOf(current) + 1 };
    await this.conditional(input.expectedVersion, () =>
      this.write(
        caller,
        [this.update(accounts, id, changes, [], input.expectedVersion), this.activity(caller, 'updated', 'account', id, now)],
        [recordUpdated('account', after)],
      ),
    );
    return (await this.accountViews(caller.workspaceId, [after], true))[0]!;
  }

  /** The account's contacts and opportunities stay, unlinked, in the same commit. */
  async deleteAccount(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const current = await this.found(this.repo.get(caller.workspaceId, accounts, id));
    requireVersion(current, expectedVersion);
    const now = this.now();
    const linked: Condition[] = [{ field: 'accountId', op: 'eq', value: id }];
    const unlink = { set: { accountId: null }, inc: { version: 1 } };
    await this.conditional(expectedVersion, () =>
      this.write(
        caller,
        [
          ...this.versionGuard(accounts, id, expectedVersion),
          { kind: 'delete', collection: accounts, id },
          { kind: 'updateMany', collection: contacts, where: linked, change: unlink },
          { kind: 'updateMany', collection: opportunities, where: linked, change: unlink },
          ...this.dependentsOf(id),
          this.activity(caller, 'deleted', 'account', id, now),
        ],
        [recordDeleted('account', current)],
      ),
    );
  }

  async listAccounts(caller: Caller, filters: AccountFilters): Promise<ListResult<AccountView>> {
    const where: Condition[] = [];
    const stage = lists.choiceFilter('stage', filters.stage, 'accountStage');
    if (stage) where.push({ field: 'stage', op: 'eq', value: stage });
    if (filters.industry) where.push({ field: 'industry', op: 'eq', value: filters.industry });
    if (filters.assignedTo) where.push({ field: 'assignedTo', op: 'eq', value: filters.assignedTo });
    const result = await this.repo.list(caller.workspaceId, accounts, {
      where,
      search: this.searchFor(filters.search),
      ordering: lists.ordering('account', filters.ordering),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return { total: result.total, items: await this.accountViews(caller.workspaceId, result.items, false), nextCursor: result.nextCursor };
  }

  // ------------------------------------------------------------------ opportunities

  async createOpportunity(caller: Caller, input: WriteInput): Promise<OpportunityView> {
    const references = await this.references(caller, input.body, OPPORTUNITY_FIELDS);
    const now = this.clock();
    const opportunity = newOpportunity({ ...input, references }, this.ids(ID_PREFIX.opportunity), caller.workspaceId, now);
    await this.write(
      caller,
      [
        { kind: 'insert', collection: opportunities, document: { ...opportunity } },
        this.activity(caller, 'created', 'opportunity', opportunity.id, timestamp(now)),
      ],
      [opportunityCreated(opportunity), ...opportunityEvents(null, opportunity)],
    );
    return (await this.opportunityViews(caller.workspaceId, [opportunity], true))[0]!;
  }

  async getOpportunity(caller: Caller, id: string): Promise<OpportunityView> {
    const opportunity = await this.found(this.repo.get(caller.workspaceId, opportunities, id));
    return (await this.opportunityViews(caller.workspaceId, [opportunity], true))[0]!;
  }

  async updateOpportunity(caller: Caller, id: string, input: WriteInput): Promise<OpportunityView> {
    const references = await this.references(caller, input.body, OPPORTUNITY_FIELDS);
    for (let attempt = 0; ; attempt++) {
      const current = await this.found(this.repo.get(caller.workspaceId, opportunities, id));
      requireVersion(current, input.expectedVersion);
      const now = this.clock();
      const changes = opportunityChanges(current, { ...input, references }, now);
      const after = { ...current, ...changes, version: versionOf(current) + 1 };
      try {
        await this.write(
          caller,
          [
            this.update(opportunities, id, changes, [{ field: 'stage', op: 'eq', value: current.stage }], input.expectedVersion),
            this.activity(caller, 'updated', 'opportunity', id, timestamp(now)),
          ],
          [...opportunityEvents(current, after), recordUpdated('opportunity', after)],
        );
      } catch (error) {
        if (error instanceof StoreError && error.code === 'conflict' && attempt < CONVERSION_CONFLICT_RETRIES) continue;
        throw error;
      }
      return (await this.opportunityViews(caller.workspaceId, [after], true))[0]!;
    }
  }

  async deleteOpportunity(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const current = await this.found(this.repo.get(caller.workspaceId, opportunities, id));
    requireVersion(current, expectedVersion);
    await this.conditional(expectedVersion, () =>
      this.write(
        caller,
        [
          ...this.versionGuard(opportunities, id, expectedVersion),
          { kind: 'delete', collection: opportunities, id },
          ...this.dependentsOf(id),
          this.activity(caller, 'deleted', 'opportunity', id, this.now()),
        ],
        [recordDeleted('opportunity', current)],
      ),
    );
  }

  async listOpportunities(caller: Caller, filters: OpportunityFilters): Promise<ListResult<OpportunityView>> {
    const where: Condition[] = [];
    const stage = lists.choiceFilter('stage', filters.stage, 'opportunityStage');
    if (stage) where.push({ field: 'stage', op: 'eq', value: stage });
    if (filters.accountId) where.push({ field: 'accountId', op: 'eq', value: filters.accountId });
    if (filters.assignedTo) where.push({ field: 'assignedTo', op: 'eq', value: filters.assignedTo });
    const after = lists.dateFilter('closeDateAfter', filters.closeDateAfter);
    if (after) where.push({ field: 'closeDate', op: 'gte', value: after });
    const before = lists.dateFilter('closeDateBefore', filters.closeDateBefore);
    if (before) where.push({ field: 'closeDate', op: 'lte', value: before });
    const min = lists.numberFilter('valueMin', filters.valueMin);
    if (min !== undefined) where.push({ field: 'value', op: 'gte', value: min });
    const max = lists.numberFilter('valueMax', filters.valueMax);
    if (max !== undefined) where.push({ field: 'value', op: 'lte', value: max });
    const result = await this.repo.list(caller.workspaceId, opportunities, {
      where,
      search: this.searchFor(filters.search),
      ordering: lists.ordering('opportunity', filters.ordering),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return {
      total: result.total,
      items: await this.opportunityViews(caller.workspaceId, result.items, false),
      nextCursor: result.nextCursor,
    };
  }

  // ------------------------------------------------------------------ sources, tasks, activities

  async createSource(caller: Caller, name: string): Promise<SourceDocument> {
    const trimmed = typeof name === 'string' ? name.trim() : '';
    if (!trimmed) throw DomainError.validation({ name: [MESSAGES.required] });
    if (trimmed.length > LIMITS.name) throw DomainError.validation({ name: [MESSAGES.maxLength(LIMITS.name)] });
    const source: SourceDocument = { id: newSourceUid(), workspaceId: caller.workspaceId, name: trimmed, createdAt: this.now() };
    await this.repo.in(caller.workspaceId).insert(sources, source);
    return source;
  }

  getSource(caller: Caller, uid: string): Promise<SourceDocument> {
    return this.found(this.repo.get(caller.workspaceId, sources, uid));
  }

  listSources(caller: Caller, paging: Paging = {}): Promise<ListResult<SourceDocument>> {
    return this.repo.list(caller.workspaceId, sources, {
      where: [],
      ordering: lists.ordering('contact', undefined),
      page: lists.page(paging.offset, paging.limit),
      cursor: paging.cursor,
    });
  }

  async createTask(
    caller: Caller,
    input: { name: string; dueDate?: string; assignedTo?: string; relatedTo: string; status?: string },
  ): Promise<TaskDocument> {
    const errors = new FieldErrorList();
    const name = (input.name ?? '').trim();
    if (!name) errors.add('name', MESSAGES.required);
    else if (name.length > LIMITS.name) errors.add('name', MESSAGES.maxLength(LIMITS.name));
    if (input.dueDate && !isCalendarDate(input.dueDate)) errors.add('dueDate', MESSAGES.date);
    const status = input.status || 'open';
    if (!(TASK_STATUSES as readonly string[]).includes(status)) errors.add('status', MESSAGES.choice(status));
    if (!input.relatedTo) errors.add('relatedTo', MESSAGES.required);
    else if (!(await this.recordExists(caller.workspaceId, input.relatedTo)))
      errors.add('relatedTo', MESSAGES.missingReference(input.relatedTo));
    if (input.assignedTo) {
      const users = await workspaceMembers(this.users, caller.workspaceId, [input.assignedTo]);
      if (!users.has(input.assignedTo)) errors.add('assignedTo', MESSAGES.missingReference(input.assignedTo));
    }
    errors.throwIfAny();
    const task: TaskDocument = {
      id: this.ids(ID_PREFIX.task),
      workspaceId: caller.workspaceId,
      name,
      dueDate: input.dueDate || null,
      assignedTo: input.assignedTo || null,
      relatedTo: input.relatedTo,
      status: status as TaskDocument['status'],
      createdAt: this.now(),
    };
    await this.repo.in(caller.workspaceId).insert(tasks, task);
    return task;
  }

  listTasks(caller: Caller, relatedTo?: string, paging: Paging = {}): Promise<ListResult<TaskDocument>> {
    return this.repo.list(caller.workspaceId, tasks, {
      where: relatedTo ? [{ field: 'relatedTo', op: 'eq', value: relatedTo }] : [],
      ordering: { field: 'createdAt', direction: 'desc' },
      page: lists.page(paging.offset, paging.limit),
      cursor: paging.cursor,
    });
  }

  listActivities(caller: Caller, recordId?: string, paging: Paging = {}): Promise<ListResult<ActivityDocument>> {
    return this.repo.list(caller.workspaceId, activities, {
      where: recordId ? [{ field: 'recordId', op: 'eq', value: recordId }] : [],
      ordering: { field: 'createdAt', direction: 'desc' },
      page: lists.page(paging.offset, paging.limit),
      cursor: paging.cursor,
    });
  }

  // ------------------------------------------------------------------ merges

  /**
   * Merges duplicates into the survivor in one commit: its merged field values (domain/record-merge.ts),
   * the merged records' notes, tasks, activities and links moved onto it, the merged records
   * deleted, and a `merged` activity naming them. Any of them changing meanwhile fails the commit (409).
   */
  async mergeRecords(caller: Caller, type: MergeableType, id: string, request: MergeRequest): Promise<AnyRecordView> {
    const kind = MERGEABLE[type];
    const ws = caller.workspaceId;
    checkMergeList(id, request.mergeIds);
    const survivor = await this.found(this.repo.get<MergeableDocument>(ws, kind.collection, id));
    const merged = (
      await Promise.all(request.mergeIds.map((other) => this.repo.get<MergeableDocument>(ws, kind.collection, other)))
    ).filter((record): record is MergeableDocument => record !== null);
    checkMergedFound(request.mergeIds, new Set(merged.map((record) => record.id)));
    const body = mergedBody(survivor as never, merged as never[], kind.fields, request.winners);
    const references = await this.references(caller, body, kind.fields);
    const now = this.now();
    const changes = kind.changes(survivor, { body, references }, now);
    const after = { ...survivor, ...changes, version: versionOf(survivor) + 1 } as MergeableDocument;
    const mergedIds = merged.map((record) => record.id);
    const moveTo = (collection: WriteOp['collection'], field: string, bump: boolean): WriteOp => ({
      kind: 'updateMany',
      collection,
      where: [{ field, op: 'in', values: mergedIds }],
      change: { set: { [field]: id }, ...(bump ? { inc: { version: 1 } } : {}) },
    });
    const ops: WriteOp[] = [
      this.update(kind.collection, id, changes, [], versionOf(survivor)),
      ...merged.flatMap((record): WriteOp[] => [
        ...this.versionGuard(kind.collection, record.id, versionOf(record)),
        { kind: 'delete', collection: kind.collection, id: record.id },
      ]),
      moveTo(notes, 'relatedTo', false),
      moveTo(tasks, 'relatedTo', false),
      moveTo(activities, 'recordId', false),
    ];
    if (type === 'account') ops.push(moveTo(contacts, 'accountId', true), moveTo(opportunities, 'accountId', true));
    if (type === 'contact') {
      ops.push(moveTo(leads, 'convertedContactId', true));
      const linked = new Map<string, OpportunityDocument>();
      for (const other of mergedIds)
        for (const o of await this.repo.in(ws).find(opportunities, { where: [{ field: 'contactIds', op: 'has', value: other }] }))
          linked.set(o.id, o);
      for (const o of linked.values()) {
        const contactIds = [...new Set(o.contactIds.map((c) => (mergedIds.includes(c) ? id : c)))];
        ops.push({
          kind: 'update',
          collection: opportunities,
          id: o.id,
          change: { set: { contactIds }, inc: { version: 1 } },
          required: false,
        });
      }
    }
    ops.push(this.activity(caller, 'merged', type, id, now, mergedIds));
    const events = [...(type === 'account' ? [] : [recordUpdated(type, after)]), recordsMerged(type, after, mergedIds)];
    try {
      await this.write(caller, ops, events);
    } catch (error) {
      if (error instanceof StoreError && error.code === 'conflict')
        throw new DomainError('conflict', 'A record changed during the merge; send it again.');
      throw error;
    }
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

  // ------------------------------------------------------------------ helpers

  private now(): string {
    return timestamp(this.clock());
  }

  private async found<T>(lookup: Promise<T | null>): Promise<T> {
    const document = await lookup;
    if (!document) throw DomainError.notFound();
    return document;
  }

  /** The literal the stored `searchText` must contain (see domain/search-text.ts). */
  private searchFor(value: string | undefined): string | undefined {
    const text = lists.search(value);
    return text ? searchNeedle(text) : undefined;
  }

  /** Which referenced accounts, contacts and users exist in the caller's workspace. */
  private async references(caller: Caller, body: Record<string, unknown>, table: FieldTable): Promise<KnownReferences> {
    const ids = referencedIds(body, table);
    const [account, contact, users] = await Promise.all([
      this.repo.existing(caller.workspaceId, accounts, ids.account),
      this.repo.existing(caller.workspaceId, contacts, ids.contact),
      ids.user.length > 0 ? workspaceMembers(this.users, caller.workspaceId, ids.user) : Promise.resolve(new Map()),
    ]);
    return { account, contact, user: new Set(users.keys()) };
  }

  private async recordExists(workspaceId: string, id: string): Promise<boolean> {
    const collection = id.startsWith('cnt_')
      ? contacts
      : id.startsWith('ld_')
        ? leads
        : id.startsWith('acc_')
          ? accounts
          : id.startsWith('opp_')
            ? opportunities
            : null;
    if (!collection) return false;
    return (await this.repo.get<{ id: string }>(workspaceId, collection, id)) !== null;
  }

  /** Every update bumps the version; with `expectedVersion` (If-Match) it applies only at that version, in the same operation. */
  private update(
    collection: WriteOp['collection'],
    id: string,
    changes: object,
    where: Condition[] = [],
    expectedVersion?: number,
  ): WriteOp {
    const change = { set: { ...changes }, inc: { version: 1 } };
    return { kind: 'update', collection, id, change, where: [...where, ...this.versionIs(expectedVersion)], required: true };
  }

  private versionIs(expected: number | undefined): Condition[] {
    if (expected === undefined) return [];
    return [expected === 0 ? { field: 'version', op: 'exists', value: false } : { field: 'version', op: 'eq', value: expected }];
  }

  /** For a delete with If-Match: a bump conditional on the version, in the delete's commit, fails it when stale. */
  private versionGuard(collection: WriteOp['collection'], id: string, expected: number | undefined): WriteOp[] {
    if (expected === undefined) return [];
    return [{ kind: 'update', collection, id, change: { inc: { version: 1 } }, where: this.versionIs(expected), required: true }];
  }

  /** A write under If-Match: a conflict in its commit means the version moved on since it was read. */
  private async conditional(expectedVersion: number | undefined, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      if (expectedVersion !== undefined && error instanceof StoreError && error.code === 'conflict') throw staleVersion();
      throw error;
    }
  }

  /** Notes and tasks about a record go with it; its activities stay. */
  private dependentsOf(id: string): WriteOp[] {
    const about: Condition[] = [{ field: 'relatedTo', op: 'eq', value: id }];
    return [
      { kind: 'deleteMany', collection: notes, where: about },
      { kind: 'deleteMany', collection: tasks, where: about },
    ];
  }

  private activity(
    caller: Caller,
    action: ActivityAction,
    recordType: RecordType,
    recordId: string,
    at: string,
    mergedIds?: string[],
  ): WriteOp {
    const document: ActivityDocument = {
      id: this.ids(ID_PREFIX.activity),
      workspaceId: caller.workspaceId,
      action,
      recordType,
      recordId,
      actorId: caller.actor.id,
      actorType: caller.actor.type,
      createdAt: at,
      ...(mergedIds ? { mergedIds } : {}),
    };
    return { kind: 'insert', collection: activities, document: { ...document } };
  }

  /** Commits the writes and their outbox events together, then pokes the relay. */
  private async write(caller: Caller, ops: WriteOp[], events: DomainEvent[]): Promise<void> {
    const now = this.now();
    const traceHeaders = captureTraceContext();
    const outboxOps: WriteOp[] = events.map((event) => {
      const document: OutboxDocument = {
        id: this.ids(ID_PREFIX.event),
        workspaceId: caller.workspaceId,
        type: event.type,
        correlationId: caller.correlationId,
        occurredAt: now,
        payload: event.payload,
        status: 'pending',
        createdAt: now,
        publishedAt: null,
        ...(traceHeaders.traceparent ? { traceHeaders } : {}),
        ...(caller.cause ? { cause: caller.cause } : {}),
      };
      return { kind: 'insert', collection: outbox, document: { ...document } };
    });
    if (outboxOps.length > 0) await this.relay.register(caller.workspaceId);
    await this.repo.commit(caller.workspaceId, [...ops, ...outboxOps]);
    if (outboxOps.length > 0) this.relay.poke(caller.workspaceId);
  }

  // ------------------------------------------------------------------ read models

  private async userNames(workspaceId: string, ids: (string | null)[], wanted: boolean): Promise<Map<string, string>> {
    const present = ids.filter((id): id is string => Boolean(id));
    if (!wanted || present.length === 0) return new Map();
    const users = await this.users.lookup(workspaceId, present);
    return new Map([...(users ?? new Map()).values()].map((u) => [u.id, u.name]));
  }

  private async accountNames(workspaceId: string, ids: (string | null)[]): Promise<Map<string, string>> {
    const found = await this.repo.accountsById(
      workspaceId,
      ids.filter((id): id is string => Boolean(id)),
    );
    return new Map(found.map((a) => [a.id, a.name]));
  }

  private async contactViews(workspaceId: string, items: ContactDocument[], withOwner: boolean): Promise<ContactView[]> {
    const [names, owners] = await Promise.all([
      this.accountNames(
        workspaceId,
        items.map((c) => c.accountId),
      ),
      this.userNames(
        workspaceId,
        items.map((c) => c.assignedTo),
        withOwner,
      ),
    ]);
    return items.map((c) => ({
      ...c,
      accountName: (c.accountId && names.get(c.accountId)) || '',
      assignedToName: (c.assignedTo && owners.get(c.assignedTo)) || '',
    }));
  }

  private async leadViews(workspaceId: string, items: LeadDocument[], withOwner: boolean): Promise<LeadView[]> {
    const owners = await this.userNames(
      workspaceId,
      items.map((l) => l.assignedTo),
      withOwner,
    );
    return items.map((l) => ({ ...l, assignedToName: (l.assignedTo && owners.get(l.assignedTo)) || '' }));
  }

  private async accountViews(workspaceId: string, items: AccountDocument[], withOwner: boolean): Promise<AccountView[]> {
    const owners = await this.userNames(
      workspaceId,
      items.map((a) => a.assignedTo),
      withOwner,
    );
    return Promise.all(
      items.map(async (a) => {
        const [contactCount, openOpportunityCount] = await Promise.all([
          this.repo.contactCount(workspaceId, a.id),
          this.repo.openOpportunityCount(workspaceId, a.id),
        ]);
        return {
          ...a,
          assignedToName: (a.assignedTo && owners.get(a.assignedTo)) || '',
          contactCount,
          openOpportunityCount,
          // Cases are not a record of this service yet, so no account has open cases.
          openCaseCount: 0,
        };
      }),
    );
  }

  private async opportunityViews(workspaceId: string, items: OpportunityDocument[], withOwner: boolean): Promise<OpportunityView[]> {
    const [names, owners] = await Promise.all([
      this.accountNames(
        workspaceId,
        items.map((o) => o.accountId),
      ),
      this.userNames(
        workspaceId,
        items.map((o) => o.assignedTo),
        withOwner,
      ),
    ]);
    return items.map((o) => ({
      ...o,
      accountName: (o.accountId && names.get(o.accountId)) || '',
      assignedToName: (o.assignedTo && owners.get(o.assignedTo)) || '',
    }));
  }
}

/** The public JSON of a view, for GetRecord's fields_json. */
export function recordJson(view: AnyRecordView): string {
  return JSON.stringify({ ...publicRecord(view.record), ...namesOf(view) });
}

function namesOf(view: AnyRecordView): Record<string, unknown> {
  const r = view.record as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of ['accountName', 'assignedToName', 'contactCount', 'openOpportunityCount', 'openCaseCount'])
    if (key in r) out[key] = r[key];
  return out;
}

/** A batch's id: its idempotency key hashed within the workspace. */
function batchIdOf(workspaceId: string, idempotencyKey: string): string {
  return `bat_${createHash('sha256').update(`${workspaceId}\n${idempotencyKey}`).digest('hex')}`;
}
