/**
 * The events of one batch write as one bus message: `records.records_written.v1`, holding each
 * event's type and payload in order. A batch of 1,000 records used to make 1,000 messages: 1,000
 * outbox rows, publishes, and deliveries and acknowledgements in every queue bound to them.
 * Records writes one per RECORD_EVENT_GROUP (its domain/events.ts); every consumer reads it as the
 * events it holds (eventsOfGroup), each with the id `${message id}:${index}`, the same on every
 * delivery, so what a consumer derives from an event's id (a webhook event's, an enrollment's)
 * stays stable.
 */

export const RECORDS_WRITTEN = 'records.records_written.v1';

/**
 * At most this many events, and about this many JSON characters of them (jsonLengthEstimate), in
 * one message. The bus takes 8 MB, and a character the estimate counts once can take up to six
 * bytes in the message (a control character's `\u0001`): 1 MB of estimate stays within it.
 */
export const RECORD_EVENT_GROUP = { maxEvents: 1_000, maxJsonLength: 1024 * 1024 } as const;

export interface GroupedEvent {
  type: string;
  payload: Record<string, unknown>;
}

export interface RecordsWrittenPayload {
  workspaceId: string;
  written: GroupedEvent[];
}

/**
 * An import chunk's contacts as one message (records' contactsCreated), older than RECORDS_WRITTEN:
 * its `events` are contact_created payloads. eventsOfGroup gives each the id
 * `${message id}:${record id}`; webhooks derive theirs from the message id and the record id, as
 * they always have (webhook-envelopes.ts).
 */
export const CONTACTS_CREATED = 'records.contacts_created.v1';
const CONTACT_CREATED = 'records.contact_created.v1';

export interface ContactsCreatedPayload {
  workspaceId?: string;
  events: Array<Record<string, unknown> & { recordId?: string; workspaceId?: string }>;
}

/** The events a message stands for: a group's, each as a message of its own; any other message as it is. */
export function eventsOfGroup<M extends { id: string; type: string; payload: unknown }>(message: M): M[] {
  if (message.type === CONTACTS_CREATED) {
    const { workspaceId, events } = (message.payload ?? {}) as Partial<ContactsCreatedPayload>;
    if (!Array.isArray(events)) return [];
    return events.map((payload) => ({
      ...message,
      id: `${message.id}:${String(payload.recordId)}`,
      type: CONTACT_CREATED,
      payload: { ...payload, workspaceId: workspaceId ?? payload.workspaceId },
    }));
  }
  if (message.type !== RECORDS_WRITTEN) return [message];
  const written = (message.payload as Partial<RecordsWrittenPayload> | null)?.written;
  if (!Array.isArray(written)) return [];
  return written.map((event, index) => ({ ...message, id: `${message.id}:${index}`, type: event.type, payload: event.payload }));
}
