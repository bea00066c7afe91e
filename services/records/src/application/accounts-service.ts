/** Accounts: create, read, update, delete and list. */
import { ACCOUNT_RULES } from '../domain/account-rules';
import { recordDeleted } from '../domain/events';
import { ID_PREFIX } from '../domain/ids';
import * as lists from '../domain/list-rules';
import { requireVersion } from '../domain/record-version';
import type { AccountFilter } from '../store/record-filters';
import type { ListResult } from '../store/records-repository';
import { listCriteria } from './record-field-resolver';
import { RECORD_WRITES, stageCreate, stageUpdate } from './record-writes';
import { found, nowOf, referencesOf, searchFor, type RecordsContext } from './records-context';
import type { AccountView, Caller, WriteInput } from './views';

export interface AccountFilters {
  /** The filter language's tree, as JSON text (domain/record-filter.ts). */
  filter?: string;
  /** `customFields.<key>=` exact filters, as JSON text (record-field-resolver.ts). */
  customFieldEquals?: string;
  externalId?: string;
  cursor?: string;
  stage?: string;
  industry?: string;
  assignedTo?: string;
  search?: string;
  ordering?: string;
  offset?: number;
  limit?: number;
}

export class AccountsService {
  constructor(private readonly context: RecordsContext) {}

  async create(caller: Caller, input: WriteInput): Promise<AccountView> {
    const { writer, ids } = this.context;
    const references = await referencesOf(this.context, caller, input.body, ACCOUNT_RULES);
    const now = this.context.clock();
    const account = RECORD_WRITES.account.build({ ...input, references }, ids(ID_PREFIX.account), caller.workspaceId, now);
    const changes = writer.changes();
    const events = stageCreate(writer, changes, caller, 'account', account, now);
    await writer.write(caller, changes, events);
    return (await this.context.views.accounts(caller.workspaceId, [account], true, references.customFields))[0]!;
  }

  async get(caller: Caller, id: string): Promise<AccountView> {
    const account = await found(this.context.repo.record(caller.workspaceId, 'account', id));
    return (await this.context.views.accounts(caller.workspaceId, [account], true))[0]!;
  }

  async update(caller: Caller, id: string, input: WriteInput): Promise<AccountView> {
    const { repo, writer } = this.context;
    const current = await found(repo.record(caller.workspaceId, 'account', id));
    requireVersion(current, input.expectedVersion);
    const references = await referencesOf(this.context, caller, input.body, ACCOUNT_RULES);
    const now = this.context.clock();
    const fields = RECORD_WRITES.account.change(current, { ...input, references }, now);
    const changes = writer.changes();
    const { after, events } = stageUpdate(writer, changes, caller, 'account', current, fields, now, input.expectedVersion);
    await writer.conditional(input.expectedVersion, () => writer.write(caller, changes, events));
    return (await this.context.views.accounts(caller.workspaceId, [after], true, references.customFields))[0]!;
  }

  /** The account's contacts and opportunities stay, unlinked, in the same commit. */
  async delete(caller: Caller, id: string, expectedVersion?: number): Promise<void> {
    const { repo, writer } = this.context;
    const current = await found(repo.record(caller.workspaceId, 'account', id));
    requireVersion(current, expectedVersion);
    const now = nowOf(this.context);
    const changes = writer.changes().delete('account', id, expectedVersion).unlinkAccount(id).deleteDependents(id);
    writer.activity(changes, caller, 'deleted', 'account', id, now);
    writer.audit(changes, caller, 'deleted', 'account', { id, before: current, after: null }, now);
    await writer.conditional(expectedVersion, () => writer.write(caller, changes, [recordDeleted('account', current)]));
  }

  async list(caller: Caller, filters: AccountFilters): Promise<ListResult<AccountView>> {
    const filter = accountListFilter(filters);
    const result = await this.context.repo.listRecords(caller.workspaceId, 'account', filter, {
      search: searchFor(filters.search),
      ...(await listCriteria(this.context, caller.workspaceId, 'account', filters)),
      page: lists.page(filters.offset, filters.limit),
      cursor: filters.cursor,
    });
    return {
      total: result.total,
      items: await this.context.views.accounts(caller.workspaceId, result.items, false),
      nextCursor: result.nextCursor,
    };
  }
}

/** The account list's own filters, checked (400 for a bad value), as the store reads them. */
export function accountListFilter(filters: AccountFilters): AccountFilter {
  return {
    externalId: filters.externalId,
    stage: lists.choiceFilter('stage', filters.stage, 'accountStage'),
    industry: filters.industry,
    assignedTo: filters.assignedTo,
  };
}
