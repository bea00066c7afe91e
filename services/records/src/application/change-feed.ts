/**
 * GET /api/events/: the workspace's webhook envelopes in feed order (events/feed-numbering.ts),
 * from a cursor on. An entry is a bus message; its envelopes are made by the function webhooks use
 * (@crm/vocabulary webhookEventsFor), so an envelope's id is its webhook's X-CRM-Event-Id. An
 * import's batch message holds hundreds of contact.created envelopes, so a cursor can stop inside one.
 */
import { DomainError } from '@crm/observability';
import { CHANGE_FEED_LIMITS, WEBHOOK_EVENT_TYPES, webhookEventsFor, type WebhookEnvelope } from '@crm/vocabulary';
import { decodeFeedCursor, encodeFeedCursor, FEED_START } from '../domain/feed-cursor';
import type { ChangeFeedRepository } from '../store/change-feed-repository';
import type { FeedEventDocument } from '../store/change-feed-collections';

export interface ChangeFeedRequest {
  after?: string;
  /** Comma-separated webhook event types; none: every type. */
  types?: string;
  limit?: string;
}

export interface ChangeFeedPage {
  results: WebhookEnvelope[];
  nextCursor: string;
}

/** Entries read per store query; a read stops after `MAX_SCANNED` entries even if it found fewer events than asked. */
const READ_SIZE = 200;
const MAX_SCANNED = 5_000;

export class ChangeFeed {
  constructor(private readonly repository: ChangeFeedRepository) {}

  async list(workspaceId: string, request: ChangeFeedRequest): Promise<ChangeFeedPage> {
    const limit = limitOf(request.limit);
    const types = typesOf(request.types);
    const key = await this.repository.cursorKey();
    let position = FEED_START;
    if (request.after) {
      const decoded = decodeFeedCursor(key, workspaceId, request.after);
      if (!decoded)
        throw new DomainError('invalid_argument', 'Invalid cursor.', {
          after: ['This cursor was not made by this feed for this workspace.'],
        });
      position = decoded;
    }
    const results: WebhookEnvelope[] = [];
    let scanned = 0;
    for (;;) {
      const entries = await this.repository.entriesFrom(workspaceId, position.seq, READ_SIZE);
      for (const entry of entries) {
        const envelopes = envelopesOf(entry);
        const from = entry.seq === position.seq ? position.skip : 0;
        for (let i = from; i < envelopes.length; i++) {
          if (results.length === limit) return { results, nextCursor: encodeFeedCursor(key, workspaceId, { seq: entry.seq, skip: i }) };
          if (!types || types.has(envelopes[i]!.type)) results.push(envelopes[i]!);
        }
        position = { seq: entry.seq + 1, skip: 0 };
      }
      scanned += entries.length;
      if (entries.length < READ_SIZE || scanned >= MAX_SCANNED) break;
    }
    return { results, nextCursor: encodeFeedCursor(key, workspaceId, position) };
  }
}

function envelopesOf(entry: FeedEventDocument): WebhookEnvelope[] {
  return webhookEventsFor({ id: entry.messageId, type: entry.type, occurredAt: entry.occurredAt, payload: entry.payload });
}

function limitOf(value: string | undefined): number {
  if (value === undefined || value === '') return CHANGE_FEED_LIMITS.defaultLimit;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw new DomainError('invalid_argument', 'Invalid limit.', { limit: ['Ensure this value is a positive integer.'] });
  return Math.min(Number(value), CHANGE_FEED_LIMITS.maxLimit);
}

function typesOf(value: string | undefined): Set<string> | null {
  if (value === undefined || value.trim() === '') return null;
  const asked = value.split(',').map((type) => type.trim());
  const unknown = asked.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new DomainError('invalid_argument', 'Unknown event type.', {
      types: unknown.map((type) => `"${type}" is not an event type; known: ${WEBHOOK_EVENT_TYPES.join(', ')}.`),
    });
  return new Set(asked);
}
