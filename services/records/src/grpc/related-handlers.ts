/** What hangs off records over gRPC: sources, tasks, activities, the audit log and the change feed. */
import type { RecordsResources } from '../application/records-resources';
import type { ChangeFeed } from '../application/change-feed';
import { activityMessage, auditEntryMessage, auditFiltersOf, sourceMessage, taskMessage } from './proto-mapping';
import { type RpcHandlers, callerOf, nonEmpty, pageOf, paging } from './records-rpc';

type RelatedRpc =
  'CreateSource' | 'GetSource' | 'ListSources' | 'CreateTask' | 'ListTasks' | 'ListActivities' | 'ListAuditEntries' | 'ListEvents';

export function relatedHandlers(records: RecordsResources, feed: ChangeFeed): RpcHandlers<RelatedRpc> {
  return {
    CreateSource: async (r, c) => ({ source: sourceMessage(await records.related.createSource(callerOf(c), r.name)) }),
    GetSource: async (r, c) => ({ source: sourceMessage(await records.related.getSource(callerOf(c), r.uid)) }),
    ListSources: async (r, c) => {
      const page = await records.related.listSources(callerOf(c), paging(r));
      return { ...pageOf(page), sources: page.items.map(sourceMessage) };
    },
    CreateTask: async (r, c) => ({
      task: taskMessage(
        await records.related.createTask(callerOf(c), {
          name: r.name,
          dueDate: nonEmpty(r.dueDate),
          assignedTo: nonEmpty(r.assignedTo),
          relatedTo: r.relatedTo,
          status: nonEmpty(r.status),
        }),
      ),
    }),
    ListTasks: async (r, c) => {
      const page = await records.related.listTasks(callerOf(c), nonEmpty(r.relatedTo), paging(r));
      return { ...pageOf(page), tasks: page.items.map(taskMessage) };
    },
    ListActivities: async (r, c) => {
      const page = await records.related.listActivities(callerOf(c), nonEmpty(r.recordId), paging(r));
      return { ...pageOf(page), activities: page.items.map(activityMessage) };
    },
    ListAuditEntries: async (r, c) => {
      const caller = callerOf(c);
      const page = r.history
        ? await records.auditLog.history(caller, r.recordKind, r.recordId, paging(r))
        : await records.auditLog.list(caller, auditFiltersOf(r), paging(r));
      return { ...pageOf(page), entries: page.items.map(auditEntryMessage) };
    },
    ListEvents: async (r, c) => {
      const page = await feed.list(callerOf(c).workspaceId, {
        after: nonEmpty(r.after),
        types: nonEmpty(r.types),
        limit: nonEmpty(r.limit),
      });
      return { events: page.results.map((envelope) => JSON.stringify(envelope)), nextCursor: page.nextCursor };
    },
  };
}
