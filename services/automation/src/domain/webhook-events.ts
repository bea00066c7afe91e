/**
 * Records' bus events as webhook events. Records publishes creations of leads and contacts (one
 * batch event for an import chunk's contacts), every update of a lead, contact or opportunity, a
 * lead's status change (to `converted` is lead.converted) and an opportunity's stage change. An
 * event's id derives from the bus message's (and the record's, in a batch), so a redelivered bus
 * message makes the same webhook event, which receivers de-duplicate by X-CRM-Event-Id.
 */
import type { BusMessage } from '@crm/bus';
import { derivedId, ID_PREFIX } from './ids';
import type { WebhookEnvelope, WebhookEventType } from './webhook-model';

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
}

const UPDATABLE = new Set(['lead', 'contact', 'opportunity', 'account']);

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

/** The webhook events one records message stands for (none for the ones webhooks do not expose). */
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
    case 'records.record_updated.v1':
      if (payload.recordType && UPDATABLE.has(payload.recordType))
        out.push(envelope(message, `${payload.recordType}.updated` as WebhookEventType, payload, {}));
      break;
    case 'records.lead_status_changed.v1':
      if (payload.status === 'converted') out.push(envelope(message, 'lead.converted', payload, {}));
      break;
    case 'records.opportunity_stage_changed.v1':
      out.push(envelope(message, 'opportunity.stage_changed', payload, { previousStage: payload.previousStage, stage: payload.stage }));
      break;
  }
  return out.filter((event): event is WebhookEnvelope => event !== null);
}
