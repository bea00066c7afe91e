/** Webhook subscriptions, the delivery log and the event types a subscription may ask for. */
import type { StoredDocument } from '@crm/store';
import { WEBHOOK_EVENT_TYPES, type WebhookEnvelope, type WebhookEventType } from '@crm/vocabulary';

export { WEBHOOK_EVENT_TYPES, type WebhookEnvelope, type WebhookEventType };

/** A signing secret; `expiresAt` (unix ms) is set on the previous one during a rotation's overlap. */
export interface WebhookSecret {
  value: string;
  expiresAt: number | null;
}

export interface WebhookSubscriptionDocument extends StoredDocument {
  workspaceId: string;
  url: string;
  events: WebhookEventType[];
  isActive: boolean;
  /** The current secret first; a rotated-out one stays until its expiresAt. Never in an answer but create's and rotate's. */
  secrets: WebhookSecret[];
  /** Set when a delivery ran out of retries; cleared by the next delivered event. */
  failingReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export type DeliveryStatus = 'delivered' | 'failed';

/** One attempt of one event to one subscription. */
export interface WebhookDeliveryDocument extends StoredDocument {
  workspaceId: string;
  subscriptionId: string;
  eventId: string;
  type: WebhookEventType;
  attempt: number;
  status: DeliveryStatus;
  responseStatus: number | null;
  durationMs: number;
  /** Why it failed (connection refused, timeout, refused address, HTTP status); null when delivered. */
  error: string | null;
  /** The first bytes of the receiver's answer. */
  responseExcerpt: string | null;
  /** The envelope sent, so a redelivery sends the same event. */
  envelope: WebhookEnvelope;
  createdAt: string;
  /**
   * A failed attempt's retry, while it has not run: when it is due (Unix ms) and what it needs. The
   * retry travels as a scheduled bus message (delay queues), and this is what brings it back should
   * the bus lose it (application/engine/webhook-retry-recovery.ts). Cleared when the retry's attempt begins.
   */
  retryDueAt?: number;
  retry?: { attempt: number; firstAttemptAt: number; correlationId: string };
  /** Set when a privacy erasure blanked the payload: a retry of it still on the bus is dropped, not sent. */
  erasedAt?: string;
}
