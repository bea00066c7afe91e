/**
 * The change feed's storage (GET /api/events/): every bus event of a workspace in the order the
 * outbox relay took it, numbered by `seq` (1, 2, 3, ... per workspace, no gaps: the relay numbers
 * a batch under the workspace's lease in the commit that removes it from the outbox). Stored as
 * the bus message; the webhook envelopes are made from it on read, by the function automation
 * uses for webhooks (@crm/vocabulary webhookEventsFor), so both give an event the same id.
 */
import { defineCollection } from '@crm/store';

export interface FeedEventDocument {
  /** The outbox event's id. */
  id: string;
  workspaceId: string;
  /** The workspace's feed position. */
  seq: number;
  /** The bus message's id, type, time and payload: what the envelopes derive from. */
  messageId: string;
  type: string;
  occurredAt: string;
  payload: Record<string, unknown>;
  /** When the relay numbered it (ISO, ms): the 7-day retention counts from it. */
  fedAt: string;
}

export const feedEvents = defineCollection<FeedEventDocument>({
  name: 'feed_events',
  scope: 'workspace',
  fields: { seq: 'number', fedAt: 'string' },
  indexes: [
    { fields: ['seq'], unique: true },
    { fields: ['fedAt'], acrossWorkspaces: true },
  ],
});

/**
 * Other services' events taken into the feed (import's ended jobs, automation's failed runs), by
 * bus message id: the insert that makes a redelivered message a duplicate instead of a second entry.
 */
export interface FeedIntakeDocument {
  id: string;
  workspaceId: string;
  receivedAt: string;
}

export const feedIntake = defineCollection<FeedIntakeDocument>({
  name: 'feed_intake',
  scope: 'workspace',
  indexes: [{ fields: ['receivedAt'], acrossWorkspaces: true }],
});

/** The secret the feed's cursors are signed with: one per install, made by whichever replica needs it first. */
export interface FeedKeyDocument {
  id: string;
  secret: string;
}

export const feedKeys = defineCollection<FeedKeyDocument>({ name: 'feed_keys', scope: 'global' });

export const changeFeedCollections = [feedEvents, feedIntake, feedKeys];
