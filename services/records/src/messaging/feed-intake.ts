/**
 * Other services' events in the change feed: import's ended jobs and automation's failed runs go
 * on the bus straight from their services, so records takes them from its own queue into its
 * outbox, marked `external` (the relay does not publish them again, it only numbers them into the
 * feed), behind the records events already committed: an import's job end comes after the
 * contacts its chunks created. A redelivered message hits its intake entry and is dropped.
 */
import { apiTimestamp } from '@crm/vocabulary';
import type { BusMessage, QueueDefinition } from '@crm/bus';
import { StoreError, type DocumentStore } from '@crm/store';
import { ID_PREFIX, newId } from '../domain/ids';
import { feedIntake } from '../store/change-feed-collections';
import { outbox, pendingEventsMark, type OutboxDocument } from '../store/collections';
import type { OutboxRelay } from './outbox-relay';

/** The webhook event types that do not come from records' own outbox (the bindings of automation.webhook-events besides records.#). */
export const FEED_INTAKE_QUEUE: QueueDefinition = {
  name: 'records.change-feed-intake',
  bindings: ['import.job_completed.v1', 'import.job_failed.v1', 'automation.run_failed.v1'],
  prefetch: 16,
};

export class FeedIntake {
  constructor(
    private readonly store: DocumentStore,
    private readonly relay: OutboxRelay,
  ) {}

  async handle(message: BusMessage): Promise<void> {
    const workspaceId = (message.payload as { workspaceId?: unknown } | null)?.workspaceId;
    if (typeof workspaceId !== 'string' || workspaceId === '') return;
    const now = new Date();
    const event: OutboxDocument = {
      // A records id, so the relay's "oldest first" puts it after the events committed before it.
      id: newId(ID_PREFIX.event, now.getTime()),
      workspaceId,
      type: message.type,
      correlationId: message.correlationId,
      occurredAt: message.occurredAt,
      payload: (message.payload ?? {}) as Record<string, unknown>,
      status: 'pending',
      createdAt: apiTimestamp(now),
      publishedAt: null,
      external: { messageId: message.id },
    };
    await this.relay.register(workspaceId);
    try {
      await this.store
        .forWorkspace(workspaceId)
        .commit([
          { kind: 'insert', collection: feedIntake, document: { id: message.id, workspaceId, receivedAt: now.toISOString() } },
          pendingEventsMark(workspaceId, event.id),
          { kind: 'insert', collection: outbox, document: { ...event } },
        ]);
    } catch (error) {
      if (error instanceof StoreError && error.code === 'duplicate') return;
      throw error;
    }
    this.relay.poke(workspaceId);
  }
}
