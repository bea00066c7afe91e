/** What hangs off the records: tasks about a record, lead sources, and the audit log's activities. */
import { DomainError } from '@crm/observability';
import { isCalendarDate } from '../domain/clock';
import { FieldErrorList, LIMITS, MESSAGES } from '../domain/field-rules';
import { ID_PREFIX, newSourceUid } from '../domain/ids';
import * as lists from '../domain/list-rules';
import { TASK_STATUSES, type ActivityDocument, type RecordType, type SourceDocument, type TaskDocument } from '../domain/model';
import { workspaceMembers } from '../adapters/user-directory';
import type { ListResult } from '../store/records-repository';
import { found, nowOf, type RecordsContext } from './records-context';
import type { Caller, Paging } from './views';

export interface TaskInput {
  name: string;
  dueDate?: string;
  assignedTo?: string;
  relatedTo: string;
  status?: string;
}

export class RelatedLists {
  constructor(private readonly context: RecordsContext) {}

  async createSource(caller: Caller, name: string): Promise<SourceDocument> {
    const trimmed = typeof name === 'string' ? name.trim() : '';
    if (!trimmed) throw DomainError.validation({ name: [MESSAGES.required] });
    if (trimmed.length > LIMITS.name) throw DomainError.validation({ name: [MESSAGES.maxLength(LIMITS.name)] });
    const source: SourceDocument = { id: newSourceUid(), workspaceId: caller.workspaceId, name: trimmed, createdAt: nowOf(this.context) };
    await this.context.repo.insertSource(source);
    return source;
  }

  getSource(caller: Caller, uid: string): Promise<SourceDocument> {
    return found(this.context.repo.source(caller.workspaceId, uid));
  }

  listSources(caller: Caller, paging: Paging = {}): Promise<ListResult<SourceDocument>> {
    return this.context.repo.listSources(caller.workspaceId, {
      ordering: lists.ordering('contact', undefined),
      page: lists.page(paging.offset, paging.limit),
      cursor: paging.cursor,
    });
  }

  async createTask(caller: Caller, input: TaskInput): Promise<TaskDocument> {
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
      const users = await workspaceMembers(this.context.users, caller.workspaceId, [input.assignedTo]);
      if (!users.has(input.assignedTo)) errors.add('assignedTo', MESSAGES.missingReference(input.assignedTo));
    }
    errors.throwIfAny();
    const task: TaskDocument = {
      id: this.context.ids(ID_PREFIX.task),
      workspaceId: caller.workspaceId,
      name,
      dueDate: input.dueDate || null,
      assignedTo: input.assignedTo || null,
      relatedTo: input.relatedTo,
      status: status as TaskDocument['status'],
      createdAt: nowOf(this.context),
    };
    await this.context.repo.insertTask(task);
    return task;
  }

  listTasks(caller: Caller, relatedTo?: string, paging: Paging = {}): Promise<ListResult<TaskDocument>> {
    return this.context.repo.listTasks(caller.workspaceId, relatedTo, {
      ordering: { field: 'createdAt', direction: 'desc' },
      page: lists.page(paging.offset, paging.limit),
      cursor: paging.cursor,
    });
  }

  listActivities(caller: Caller, recordId?: string, paging: Paging = {}): Promise<ListResult<ActivityDocument>> {
    return this.context.repo.listActivities(caller.workspaceId, recordId, {
      ordering: { field: 'createdAt', direction: 'desc' },
      page: lists.page(paging.offset, paging.limit),
      cursor: paging.cursor,
    });
  }

  private async recordExists(workspaceId: string, id: string): Promise<boolean> {
    const type = recordTypeOf(id);
    if (!type) return false;
    return (await this.context.repo.record(workspaceId, type, id)) !== null;
  }
}

/** The kind of record an id names, by its prefix; null for anything else. */
function recordTypeOf(id: string): RecordType | null {
  if (id.startsWith('cnt_')) return 'contact';
  if (id.startsWith('ld_')) return 'lead';
  if (id.startsWith('acc_')) return 'account';
  if (id.startsWith('opp_')) return 'opportunity';
  return null;
}
