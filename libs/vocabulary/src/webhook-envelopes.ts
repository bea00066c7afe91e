/**
 * Records' bus events as webhook events. Records publishes every creation (one batch event for an
 * import chunk's contacts; a batch write's events as one group), update and deletion of a lead, contact, account or opportunity, merges
 * (the merged-away records count as deleted), a lead's status change (to `converted` is
 * lead.converted) and an opportunity's stage change; the engine publishes failed runs, and import
 * its ended jobs. An
 * event's id derives from the bus message's (and the record's, in a batch), so a redelivered bus
 * message makes the same webhook event, which receivers de-duplicate by X-CRM-Event-Id.
 * Shared by automation (webhook deliveries) and records (the change feed), so both make the same ids.
 */
import { createHash } from 'node:crypto';
import type { WEBHOOK_EVENT_TYPES } from './automation';
import { CONTACTS_CREATED, eventsOfGroup, RECORDS_WRITTEN } from './record-event-groups';

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

type Translation = (message: BusMessage, payload: RecordEventPayload) => Array<WebhookEnvelope | null>;

/** An updated or deleted record, typed by its kind. */
const changed =
  (change: 'updated' | 'deleted'): Translation =>
  (message, payload) => {
    const type = typed(payload, change);
    return type ? [envelope(message, type, payload, {})] : [];
  };

/** A merge: each merged record deleted; an account's survivor updated (lead and contact survivors come with their own record_updated). */
const merged: Translation = (message, payload) => {
  const deleted = typed(payload, 'deleted');
  const out: Array<WebhookEnvelope | null> = [];
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
  return out;
};

/** The bus messages webhooks expose, by message type: what each stands for. */
const TRANSLATIONS: Record<string, Translation> = {
  'records.lead_created.v1': (message, payload) => [envelope(message, 'lead.created', payload, {})],
  'records.contact_created.v1': (message, payload) => [envelope(message, 'contact.created', payload, {})],
  [CONTACTS_CREATED]: (message, payload) =>
    (payload.events ?? []).map((entry) =>
      envelope(message, 'contact.created', { ...entry, workspaceId: payload.workspaceId ?? entry.workspaceId }, {}),
    ),
  'records.account_created.v1': (message, payload) => [envelope(message, 'account.created', payload, {})],
  'records.opportunity_created.v1': (message, payload) => [envelope(message, 'opportunity.created', payload, {})],
  'records.record_updated.v1': changed('updated'),
  'records.record_deleted.v1': changed('deleted'),
  // The engine's own event (engine/run-events.ts): a run of a rule ended failed.
  'automation.run_failed.v1': (message) => [asIs(message, 'automation.run_failed')],
  // Import's (services/import application/import-events.ts): a job ended.
  'import.job_completed.v1': (message) => [asIs(message, 'import.completed')],
  'import.job_failed.v1': (message) => [asIs(message, 'import.failed')],
  'records.records_merged.v1': merged,
  // A batch write's events (record-event-groups.ts), each as its own message would be.
  [RECORDS_WRITTEN]: (message) => eventsOfGroup(message).flatMap((event) => webhookEventsFor(event)),
  'records.lead_status_changed.v1': (message, payload) =>
    payload.status === 'converted' ? [envelope(message, 'lead.converted', payload, {})] : [],
  // Records' privacy erasure: the counts only (the payload never names the person).
  'records.person_erased.v1': (message) => [asIs(message, 'person.erased')],
  'records.opportunity_stage_changed.v1': (message, payload) => [
    envelope(message, 'opportunity.stage_changed', payload, { previousStage: payload.previousStage, stage: payload.stage }),
  ],
};

/** The webhook events one message stands for (none for the ones webhooks do not expose). */
export function webhookEventsFor(message: BusMessage): WebhookEnvelope[] {
  const translate = Object.hasOwn(TRANSLATIONS, message.type) ? TRANSLATIONS[message.type] : undefined;
  if (!translate) return [];
  const payload = (message.payload ?? {}) as RecordEventPayload;
  return translate(message, payload).filter((event): event is WebhookEnvelope => event !== null);
}

/** GET /api/events/: `limit` when none is given, and the most one page serves (a larger one is served as this). */
export const CHANGE_FEED_LIMITS = { defaultLimit: 100, maxLimit: 1_000 } as const;

/** How long the change feed keeps an event. */
export const CHANGE_FEED_RETENTION_DAYS = 7;
