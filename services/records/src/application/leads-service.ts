/** Leads: create, read, update, delete, list, and conversion into a contact (with an account and an opportunity). */
import { apiTimestamp } from '@crm/vocabulary';
import { DomainError } from '@crm/observability';
import type { CustomFieldKind } from '@crm/vocabulary';
import { contactCreated, leadEvents, opportunityEvents, recordDeleted, recordUpdated, type DomainEvent } from '../domain/events';
import { ID_PREFIX } from '../domain/ids';
import { ALREADY_CONVERTED, planConversion, type ConversionFields } from '../domain/lead-conversion';
import { LEAD_RULES } from '../domain/lead-rules';
import * as lists from '../domain/list-rules';
import type { LeadDocument } from '../domain/model';
import { requireVersion } from '../domain/record-version';
import type { LeadFilter } from '../store/record-filters';
import type { ListResult } from '../store/records-repository';
import { CONFLICT_RETRIES, isConflict } from './record-writer';
import { listCriteria } from './record-field-resolver';
import { RECORD_WRITES, stageCreate, stageUpdate } from './record-writes';
import { found, nowOf, referencesOf, searchFor, type RecordsContext } from './records-context';
import type { AccountView, Caller, ContactView, LeadView, OpportunityView, WriteInput } from './views';

export interface LeadFilters {
  /** The filter language's tree, as JSON text (domain/record-filter.ts). */
  filter?: string;
  /** `customFields.<key>=` exact filters, as JSON text (record-field-resolver.ts). */
  customFieldEquals?: string;
  externalId?: string;
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

export interface ConversionResult {
  lead: LeadView;
  contact: ContactView;
  account: AccountView | null;
  opportunity: OpportunityView | null;
}

export class LeadsService {
  constructor(private readonly context: RecordsContext) {}

  async create(caller: Caller, input: WriteInput): Promise<LeadView> {
    const { writer, ids } = this.context;
    const references = await referencesOf(this.context, caller, input.body, LEAD_RULES);
    const now = this.context.clock();
    const lead = RECORD_WRITES.lead.build({ ...input, references }, ids(ID_PREFIX.lead), caller.workspaceId, now);
    const changes = writer.changes();
    const events = stageCreate(writer, changes, caller, 'lead', lead, now);
    await writer.write(caller, changes, events);
    return (await this.context.views.leads(caller.workspaceId, [lead], true, references.customFields))[0]!;
  }

  async get(caller: Caller, id: string): Promise<LeadView> {
    const lead = await found(this.context.repo.record(caller.workspaceId, 'lead', id));
    return (await this.context.views.leads(caller.workspaceId, [lead], true))[0]!;
  }

  async update(caller: Caller, id: string, input: WriteInput): Promise<LeadView> {
    const { repo, writer } = this.context;
    const references = await referencesOf(this.context, caller, input.body, LEAD_RULES);
    for (let attempt = 0; ; attempt++) {
      const current = await found(repo.record(caller.workspaceId, 'lead', id));
      requireVersion(current, input.expectedVersion);
      const now = this.context.clock();
      const fields = RECORD_WRITES.lead.change(current, { ...input, references }, now);
      const changes = writer.changes();
      // Conditional on the status read, so the status-change event names the right previous status.
      const { after, events } = stageUpdate(writer, changes, caller, 'lead', current, fields, now, input.expectedVersion);
      try {
        await writer.write(caller, changes, events);
      } catch (error) {
        if (isConflict(error) && attempt < CONFLICT_RETRIES) continue;
        throw error;
      }
      return (await this.context.views.leads(caller.workspaceId, [after], true, references.customFields))[0]!;
    }
  }

  async delete(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const { repo, writer } = this.context;
    const current = await found(repo.record(caller.workspaceId, 'lead', id));
    requireVersion(current, expectedVersion);
    await writer.conditional(expectedVersion, () => {
      const changes = writer.changes().delete('lead', id, expectedVersion).deleteDependents(id);
      writer.activity(changes, caller, 'deleted', 'lead', id, nowOf(this.context));
      writer.audit(changes, caller, 'deleted', 'lead', { id, before: current, after: null }, nowOf(this.context));
      return writer.write(caller, changes, [recordDeleted('lead', current)]);
    });
  }

  async list(caller: Caller, filters: LeadFilters): Promise<ListResult<LeadView>> {
    const filter = leadListFilter(filters);
    const result = await this.context.repo.listRecords(caller.workspaceId, 'lead', filter, {
      search: searchFor(filters.search),
      ...(await listCriteria(this.context, caller.workspaceId, 'lead', filters)),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return {
      total: result.total,
      items: await this.context.views.leads(caller.workspaceId, result.items, false),
      nextCursor: result.nextCursor,
    };
  }

  /**
   * Converts a lead in one commit: the lead's update is conditional on it not being converted yet,
   * so of two concurrent conversions exactly one commits; the other answers "already converted".
   */
  async convert(caller: Caller, leadId: string, input: WriteInput): Promise<ConversionResult> {
    const { repo, writer, views, ids } = this.context;
    const ws = caller.workspaceId;
    const lead = await found(repo.record(ws, 'lead', leadId));
    const fields = await conversionFields(this.context, ws);
    const nowDate = this.context.clock();
    const plan = planConversion(lead, input.body, fields, ids, nowDate, input.earlierErrors);
    const now = apiTimestamp(nowDate);
    const changes = writer.changes().update('lead', lead.id, plan.leadChange, { notConverted: true });
    const convertedLead: LeadDocument = { ...lead, ...plan.leadChange };
    writer.activity(changes, caller, 'converted', 'lead', lead.id, now);
    writer.audit(changes, caller, 'converted', 'lead', { id: lead.id, before: lead, after: convertedLead }, now);
    writer.activity(changes.insert('contact', plan.contact), caller, 'created', 'contact', plan.contact.id, now);
    changes.claims('contact', plan.contact.id, plan.contact.uniqueClaims ?? [], [], ws);
    writer.audit(changes, caller, 'created', 'contact', { id: plan.contact.id, before: null, after: plan.contact }, now);
    const events: DomainEvent[] = [...leadEvents(lead, convertedLead), recordUpdated('lead', convertedLead), contactCreated(plan.contact)];
    if (plan.account) {
      writer.activity(changes.insert('account', plan.account), caller, 'created', 'account', plan.account.id, now);
      changes.claims('account', plan.account.id, plan.account.uniqueClaims ?? [], [], ws);
      writer.audit(changes, caller, 'created', 'account', { id: plan.account.id, before: null, after: plan.account }, now);
    }
    if (plan.opportunity) {
      writer.activity(changes.insert('opportunity', plan.opportunity), caller, 'created', 'opportunity', plan.opportunity.id, now);
      changes.claims('opportunity', plan.opportunity.id, plan.opportunity.uniqueClaims ?? [], [], ws);
      writer.audit(changes, caller, 'created', 'opportunity', { id: plan.opportunity.id, before: null, after: plan.opportunity }, now);
      events.push(...opportunityEvents(null, plan.opportunity));
    }
    try {
      await writer.write(caller, changes, events);
    } catch (error) {
      if (isConflict(error)) throw DomainError.invalid(ALREADY_CONVERTED);
      throw error;
    }
    const [leadView] = await views.leads(ws, [convertedLead], true, fields.lead);
    const [contactView] = await views.contacts(ws, [plan.contact], true, fields.contact);
    const accountView = plan.account ? (await views.accounts(ws, [plan.account], true, fields.account))[0]! : null;
    const opportunityView = plan.opportunity ? (await views.opportunities(ws, [plan.opportunity], true, fields.opportunity))[0]! : null;
    return { lead: leadView!, contact: contactView!, account: accountView, opportunity: opportunityView };
  }
}

/** The lead list's own filters, checked (400 for a bad value), as the store reads them. */
export function leadListFilter(filters: LeadFilters): LeadFilter {
  return {
    externalId: filters.externalId,
    status: lists.choiceFilter('status', filters.status, 'leadStatus'),
    source: filters.source,
    assignedTo: filters.assignedTo,
    createdFrom: lists.timestampFilter('createdAfter', filters.createdAfter),
    createdTo: lists.timestampFilter('createdBefore', filters.createdBefore),
  };
}

/** Every kind's custom field definitions: a conversion reads the lead's and writes the others'. */
async function conversionFields(context: RecordsContext, workspaceId: string): Promise<ConversionFields> {
  const all = await context.customFields.definitions(workspaceId);
  const of = (kind: CustomFieldKind) => all.filter((definition) => definition.kind === kind);
  return { contact: of('contact'), lead: of('lead'), account: of('account'), opportunity: of('opportunity') };
}
