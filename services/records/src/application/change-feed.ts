/**
 * GET /api/events/: the workspace's webhook envelopes in feed order (messaging/feed-numbering.ts),
 * after a cursor. The envelopes were made by the function webhooks use (@crm/vocabulary
 * webhookEventsFor), so an envelope's id is its webhook's X-CRM-Event-Id.
 */
import { DomainError } from '@crm/observability';
import { CHANGE_FEED_LIMITS, WEBHOOK_EVENT_TYPES, type WebhookEnvelope } from '@crm/vocabulary';
import { decodeFeedCursor, encodeFeedCursor } from '../domain/feed-cursor';
import type { ChangeFeedRepository } from '../store/change-feed-repository';

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

export class ChangeFeed {
  constructor(private readonly repository: ChangeFeedRepository) {}

  async list(workspaceId: string, request: ChangeFeedRequest): Promise<ChangeFeedPage> {
    const limit = limitOf(request.limit);
    const types = typesOf(request.types);
    const key = await this.repository.cursorKey();
    let after = 0;
    if (request.after) {
      const decoded = decodeFeedCursor(key, workspaceId, request.after);
      if (decoded === null)
        throw new DomainError('invalid_argument', 'Invalid cursor.', {
          after: ['This cursor was not made by this feed for this workspace.'],
        });
      after = decoded;
    }
    const entries = await this.repository.entriesAfter(workspaceId, after, types, limit);
    const last = entries.at(-1)?.seq ?? after;
    return { results: entries.map((entry) => entry.envelope), nextCursor: encodeFeedCursor(key, workspaceId, last) };
  }
}

function limitOf(value: string | undefined): number {
  if (value === undefined || value === '') return CHANGE_FEED_LIMITS.defaultLimit;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw new DomainError('invalid_argument', 'Invalid limit.', { limit: ['Ensure this value is a positive integer.'] });
  return Math.min(Number(value), CHANGE_FEED_LIMITS.maxLimit);
}

function typesOf(value: string | undefined): string[] | null {
  if (value === undefined || value.trim() === '') return null;
  const asked = value.split(',').map((type) => type.trim());
  const unknown = asked.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new DomainError('invalid_argument', 'Unknown event type.', {
      types: unknown.map((type) => `"${type}" is not an event type; known: ${WEBHOOK_EVENT_TYPES.join(', ')}.`),
    });
  return [...new Set(asked)];
}
