/**
 * Records' bus events as webhook events. Records publishes every creation (one batch event for an
 * import chunk's contacts), update and deletion of a lead, contact, account or opportunity, merges
 * (the merged-away records count as deleted), a lead's status change (to `converted` is
 * lead.converted) and an opportunity's stage change; the engine publishes failed runs, and import
 * its ended jobs. An
 * event's id derives from the bus message's (and the record's, in a batch), so a redelivered bus
 * message makes the same webhook event, which receivers de-duplicate by X-CRM-Event-Id.
 * Shared by automation (webhook deliveries) and records (the change feed), so both make the same ids.
 */
import { createHash } from 'node:crypto';
import type { WEBHOOK_EVENT_TYPES } from './automation';

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What is sent: the envelope is the POST body, and the change feed's item (GET /api/events/). */
export interface WebhookEnvelope {
  id: string;
  type: WebhookEventType;
  occurredAt: string;
  workspaceId: string;
  data: Record<string, unknown>;
}

/** The bus message an envelope is made from (the bus's own type, said here without depending on it). */
export interface BusMessage {
  id: string;
  type: string;
  occurredAt: string;
  payload: unknown;
}

const ID_PREFIX = { webhookEvent: 'evt_' } as const;

/** An id derived from its parts (automation's domain/ids.ts derivedId): a redelivered message makes the same one. */
function derivedId(prefix: string, ...parts: string[]): string {
  return `${prefix}${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 24)}`;
}

interface RecordEventPayload {
  workspaceId?: string;
  recordType?: string;
  recordId?: string;
  record?: Record<string, unknown>;
  status?: string;
  previousStatus?: string;
  stage?: string;
  previousStage?: string;
  events?: RecordEventPayload[];
  mergedIds?: string[];
}

const RECORD_TYPES = new Set(['lead', 'contact', 'opportunity', 'account']);

function typed(payload: RecordEventPayload, action: 'updated' | 'deleted'): WebhookEventType | null {
  return payload.recordType && RECORD_TYPES.has(payload.recordType) ? (`${payload.recordType}.${action}` as WebhookEventType) : null;
}

function envelope(
  message: BusMessage,
  type: WebhookEventType,
  payload: RecordEventPayload,
  data: Record<string, unknown>,
): WebhookEnvelope | null {
  if (!payload.workspaceId || !payload.record) return null;
  return {
    id: derivedId(ID_PREFIX.webhookEvent, message.id, type, payload.recordId ?? ''),
    type,
    occurredAt: message.occurredAt,
    workspaceId: payload.workspaceId,
    data: { recordType: payload.recordType, record: payload.record, ...data },
  };
}

/** An event whose payload is the webhook's data as it is (with its workspace id taken out). */
function asIs(message: BusMessage, type: WebhookEventType): WebhookEnvelope | null {
  const { workspaceId, ...data } = (message.payload ?? {}) as { workspaceId?: string } & Record<string, unknown>;
  if (!workspaceId) return null;
  return { id: derivedId(ID_PREFIX.webhookEvent, message.id, type), type, occurredAt: message.occurredAt, workspaceId, data };
}

/** The webhook events one message stands for (none for the ones webhooks do not expose). */
export function webhookEventsFor(message: BusMessage): WebhookEnvelope[] {
  const payload = (message.payload ?? {}) as RecordEventPayload;
  const out: Array<WebhookEnvelope | null> = [];
  switch (message.type) {
    case 'records.lead_created.v1':
      out.push(envelope(message, 'lead.created', payload, {}));
      break;
    case 'records.contact_created.v1':
      out.push(envelope(message, 'contact.created', payload, {}));
      break;
    case 'records.contacts_created.v1':
      for (const entry of payload.events ?? [])
        out.push(envelope(message, 'contact.created', { ...entry, workspaceId: payload.workspaceId ?? entry.workspaceId }, {}));
      break;
    case 'records.account_created.v1':
      out.push(envelope(message, 'account.created', payload, {}));
      break;
    case 'records.opportunity_created.v1':
      out.push(envelope(message, 'opportunity.created', payload, {}));
      break;
    case 'records.record_updated.v1':
    case 'records.record_deleted.v1': {
      const type = typed(payload, message.type === 'records.record_updated.v1' ? 'updated' : 'deleted');
      if (type) out.push(envelope(message, type, payload, {}));
      break;
    }
    case 'automation.run_failed.v1':
      // The engine's own event (engine/run-events.ts): a run of a rule ended failed.
      out.push(asIs(message, 'automation.run_failed'));
      break;
    case 'import.job_completed.v1':
      // Import's (services/import application/import-events.ts): a job ended.
      out.push(asIs(message, 'import.completed'));
      break;
    case 'import.job_failed.v1':
      out.push(asIs(message, 'import.failed'));
      break;
    case 'records.records_merged.v1': {
      const deleted = typed(payload, 'deleted');
      // Survivors of lead and contact merges come with their own record_updated; an account's does not.
      if (payload.recordType === 'account') out.push(envelope(message, 'account.updated', payload, {}));
      for (const mergedId of payload.mergedIds ?? []) {
        if (!deleted || !payload.workspaceId) continue;
        out.push({
          id: derivedId(ID_PREFIX.webhookEvent, message.id, deleted, mergedId),
          type: deleted,
          occurredAt: message.occurredAt,
          workspaceId: payload.workspaceId,
          data: { recordType: payload.recordType, recordId: mergedId, mergedInto: payload.recordId },
        });
      }
      break;
    }
    case 'records.lead_status_changed.v1':
      if (payload.status === 'converted') out.push(envelope(message, 'lead.converted', payload, {}));
      break;
    case 'records.person_erased.v1':
      // Records' privacy erasure: the counts only (the payload never names the person).
      out.push(asIs(message, 'person.erased'));
      break;
    case 'records.opportunity_stage_changed.v1':
      out.push(envelope(message, 'opportunity.stage_changed', payload, { previousStage: payload.previousStage, stage: payload.stage }));
      break;
  }
  return out.filter((event): event is WebhookEnvelope => event !== null);
}

/** GET /api/events/: `limit` when none is given, and the most one page serves (a larger one is served as this). */
export const CHANGE_FEED_LIMITS = { defaultLimit: 100, maxLimit: 1_000 } as const;

/** How long the change feed keeps an event. */
export const CHANGE_FEED_RETENTION_DAYS = 7;
