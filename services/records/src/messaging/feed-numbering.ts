/**
 * How the change feed gets its order: the outbox relay, holding the workspace's lease, numbers the
 * webhook envelopes of each batch it takes from the outbox (in its publishing order) from the workspace's counter, in
 * the same unit that deletes the batch and renews the lease. Only the lease holder commits that
 * unit (the renewal requires it), and the unit also requires the counter still at the value read,
 * so positions are given once each, with no gap, whichever records replica relays and however
 * many write; a reader that sees position n sees every position before it.
 */
import type { DocumentStore, WriteOp } from '@crm/store';
import { webhookEventsFor } from '@crm/vocabulary';
import { feedEvents, type FeedEventDocument } from '../store/change-feed-collections';
import { outboxWorkspaces, type OutboxDocument } from '../store/collections';
import type { FeedAdvance } from './relay-lease';

export interface FeedNumbering {
  writes: WriteOp[];
  advance: FeedAdvance;
}

/** The webhook envelopes of `events`, numbered after the workspace's last position; undefined for none. */
export async function numberForFeed(
  store: DocumentStore,
  workspaceId: string,
  events: OutboxDocument[],
): Promise<FeedNumbering | undefined> {
  const documents = events.flatMap((event) =>
    webhookEventsFor({
      id: event.external?.messageId ?? event.id,
      type: event.type,
      occurredAt: event.occurredAt,
      payload: event.payload,
    }).map((envelope, i) => ({ id: `${event.id}:${i}`, envelope })),
  );
  if (documents.length === 0) return undefined;
  const from = (await store.global().get(outboxWorkspaces, workspaceId))?.feedSeq ?? 0;
  const fedAt = new Date().toISOString();
  const writes: WriteOp[] = documents.map(({ id, envelope }, i) => {
    const document: FeedEventDocument = { id, workspaceId, seq: from + i + 1, type: envelope.type, envelope, fedAt };
    return { kind: 'insert', collection: feedEvents, document: { ...document } };
  });
  return { writes, advance: { from, to: from + documents.length } };
}
