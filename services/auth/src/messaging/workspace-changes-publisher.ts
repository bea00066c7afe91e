import type { Logger } from '@crm/observability';
import type { InvalidationChannel } from '@crm/rate-limit';
import type { WorkspaceChanges } from '../domain/workspace-changes';

/**
 * Announces workspace changes on the gateways' invalidation channel (Redis pub/sub across
 * replicas; the in-process channel in one-process mode). A failed publish is logged, not thrown:
 * the change itself is saved, and the gateways' 30 s cache bounds how long the old plan holds.
 */
export function publishWorkspaceChanges(channel: InvalidationChannel, logger: Logger): WorkspaceChanges {
  return {
    async changed(workspaceId) {
      try {
        await channel.publish({ kind: 'workspace_changed', workspaceId });
      } catch (err) {
        logger.warn({ err, workspaceId }, 'could not announce a workspace change; gateways see it when their cache expires');
      }
    },
  };
}
