/** Opportunities: create, read, update, delete and list. */
import { recordDeleted } from '../domain/events';
import { ID_PREFIX } from '../domain/ids';
import * as lists from '../domain/list-rules';
import { OPPORTUNITY_RULES } from '../domain/opportunity-rules';
import { requireVersion } from '../domain/record-version';
import type { OpportunityFilter } from '../store/record-filters';
import type { ListResult } from '../store/records-repository';
import { CONFLICT_RETRIES, isConflict } from './record-writer';
import { listCriteria } from './record-field-resolver';
import { RECORD_WRITES, stageCreate, stageUpdate } from './record-writes';
import { found, nowOf, referencesOf, searchFor, type RecordsContext } from './records-context';
import type { Caller, OpportunityView, WriteInput } from './views';

export interface OpportunityFilters {
  /** The filter language's tree, as JSON text (domain/record-filter.ts). */
  filter?: string;
  /** `customFields.<key>=` exact filters, as JSON text (record-field-resolver.ts). */
  customFieldEquals?: string;
  externalId?: string;
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

export class OpportunitiesService {
  constructor(private readonly context: RecordsContext) {}

  async create(caller: Caller, input: WriteInput): Promise<OpportunityView> {
    const { writer, ids } = this.context;
    const references = await referencesOf(this.context, caller, input.body, OPPORTUNITY_RULES);
    const now = this.context.clock();
    const opportunity = RECORD_WRITES.opportunity.build({ ...input, references }, ids(ID_PREFIX.opportunity), caller.workspaceId, now);
    const changes = writer.changes();
    const events = stageCreate(writer, changes, caller, 'opportunity', opportunity, now);
    await writer.write(caller, changes, events);
    return (await this.context.views.opportunities(caller.workspaceId, [opportunity], true, references.customFields))[0]!;
  }

  async get(caller: Caller, id: string): Promise<OpportunityView> {
    const opportunity = await found(this.context.repo.record(caller.workspaceId, 'opportunity', id));
    return (await this.context.views.opportunities(caller.workspaceId, [opportunity], true))[0]!;
  }

  async update(caller: Caller, id: string, input: WriteInput): Promise<OpportunityView> {
    const { repo, writer } = this.context;
    const references = await referencesOf(this.context, caller, input.body, OPPORTUNITY_RULES);
    for (let attempt = 0; ; attempt++) {
      const current = await found(repo.record(caller.workspaceId, 'opportunity', id));
      requireVersion(current, input.expectedVersion);
      const now = this.context.clock();
      const fields = RECORD_WRITES.opportunity.change(current, { ...input, references }, now);
      const changes = writer.changes();
      // Conditional on the stage read, so the stage-change events name the right previous stage.
      const { after, events } = stageUpdate(writer, changes, caller, 'opportunity', current, fields, now, input.expectedVersion);
      try {
        await writer.write(caller, changes, events);
      } catch (error) {
        if (isConflict(error) && attempt < CONFLICT_RETRIES) continue;
        throw error;
      }
      return (await this.context.views.opportunities(caller.workspaceId, [after], true, references.customFields))[0]!;
    }
  }

  async delete(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const { repo, writer } = this.context;
    const current = await found(repo.record(caller.workspaceId, 'opportunity', id));
    requireVersion(current, expectedVersion);
    await writer.conditional(expectedVersion, () => {
      const changes = writer.changes().delete('opportunity', id, expectedVersion).deleteDependents(id);
      writer.activity(changes, caller, 'deleted', 'opportunity', id, nowOf(this.context));
      writer.audit(changes, caller, 'deleted', 'opportunity', { id, before: current, after: null }, nowOf(this.context));
      return writer.write(caller, changes, [recordDeleted('opportunity', current)]);
    });
  }

  async list(caller: Caller, filters: OpportunityFilters): Promise<ListResult<OpportunityView>> {
    const filter = opportunityListFilter(filters);
    const result = await this.context.repo.listRecords(caller.workspaceId, 'opportunity', filter, {
      search: searchFor(filters.search),
      ...(await listCriteria(this.context, caller.workspaceId, 'opportunity', filters)),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return {
      total: result.total,
      items: await this.context.views.opportunities(caller.workspaceId, result.items, false),
      nextCursor: result.nextCursor,
    };
  }
}

/** The opportunity list's own filters, checked (400 for a bad value), as the store reads them. */
export function opportunityListFilter(filters: OpportunityFilters): OpportunityFilter {
  return {
    externalId: filters.externalId,
    stage: lists.choiceFilter('stage', filters.stage, 'opportunityStage'),
    accountId: filters.accountId,
    assignedTo: filters.assignedTo,
    closeFrom: lists.dateFilter('closeDateAfter', filters.closeDateAfter),
    closeTo: lists.dateFilter('closeDateBefore', filters.closeDateBefore),
    valueMin: lists.numberFilter('valueMin', filters.valueMin),
    valueMax: lists.numberFilter('valueMax', filters.valueMax),
  };
}
