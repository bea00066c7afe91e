import type { Client } from 'openapi-fetch';
import type { Activity, ListQuery, Task } from '../api-types';
import { CursorList } from '../cursor-list';
import type { paths } from '../generated/crm-api';
import { answer } from './answer';

/** Tasks (`relatedTo` for one record's), created by people and by automation rules. */
export class TasksResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listTasks'> = {}): CursorList<Task> {
    return new CursorList((cursor) => answer(this.api.GET('/api/tasks/', { params: { query: { ...query, cursor } } })));
  }
}

/** The audit log (`recordId` for one record's entries), which outlives the records. */
export class ActivitiesResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listActivities'> = {}): CursorList<Activity> {
    return new CursorList((cursor) => answer(this.api.GET('/api/activities/', { params: { query: { ...query, cursor } } })));
  }
}
