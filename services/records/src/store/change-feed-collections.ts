/**
 * The change feed's storage (GET /api/events/): every webhook envelope of a workspace in the order
 * the outbox relay took its event, numbered by `seq` (1, 2, 3, ... per workspace, no gaps: the relay
 * numbers a batch under the workspace's lease in the commit that removes it from the outbox). One
 * document per envelope (an import batch's message makes hundreds), made by the function automation
 * uses for webhooks (@crm/vocabulary webhookEventsFor), so both give an event the same id, and a
 * page reads as many documents as it answers.
 */
import { defineCollection } from '@crm/store';
import type { WebhookEnvelope } from '@crm/vocabulary';

export interface FeedEventDocument {
  /** `<outbox event id>:<envelope index>`. */
  id: string;
  workspaceId: string;
  /** The workspace's feed position. */
  seq: number;
  /** The envelope's type, for `types`. */
  type: string;
  envelope: WebhookEnvelope;
  /** When the relay numbered it (ISO, ms): the 7-day retention counts from it. */
  fedAt: string;
}

export const feedEvents = defineCollection<FeedEventDocument>({
  name: 'feed_events',
  scope: 'workspace',
  fields: { seq: 'number', type: 'string', fedAt: 'string' },
  indexes: [{ fields: ['seq'], unique: true }, { fields: ['type', 'seq'] }, { fields: ['fedAt'], acrossWorkspaces: true }],
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
