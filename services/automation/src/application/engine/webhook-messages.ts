/** The webhook engine's queues and its one message: an attempt to deliver one event to one subscription. */
import type { QueueDefinition } from '@crm/bus';
import { derivedId } from '../../domain/ids';
import type { WebhookEnvelope } from '../../domain/webhook-model';
import { RUN_FAILED_TYPE } from './run-events';

export const WEBHOOK_DUE_TYPE = 'automation.webhook_due.v1';

export interface WebhookDuePayload {
  workspaceId: string;
  subscriptionId: string;
  envelope: WebhookEnvelope;
  /** From 1. */
  attempt: number;
  /** Unix ms of the first attempt of this delivery; null on the first. The retry horizon counts from it. */
  firstAttemptAt: number | null;
  /** A redelivery asked for through the API: one attempt, no retries of its own. */
  manual: boolean;
}

/** The message id of attempt `attempt` (not a manual redelivery) of one event to one subscription: the same for every replica and redelivery. */
export function attemptMessageId(envelopeId: string, subscriptionId: string, attempt: number): string {
  return derivedId('whm_', envelopeId, subscriptionId, String(attempt));
}

/** Records' domain events, failed runs and ended imports, fanned out to the subscriptions that asked for them. */
export const WEBHOOK_EVENTS_QUEUE: QueueDefinition = {
  name: 'automation.webhook-events',
  bindings: ['records.#', RUN_FAILED_TYPE, 'import.job_completed.v1', 'import.job_failed.v1'],
  prefetch: 32,
  maxDeliveries: 8,
};

/**
 * Delivery attempts. Each is one message, so a slow receiver holds one consumer slot for at most
 * the POST's timeout and never the others' messages; retries are new scheduled messages.
 */
export const WEBHOOK_DELIVERIES_QUEUE: QueueDefinition = {
  name: 'automation.webhook-deliveries',
  bindings: [WEBHOOK_DUE_TYPE],
  // Attempts mostly wait on the network (up to WEBHOOK_TIMEOUT_MS each), so many run at once.
  prefetch: 64,
  maxDeliveries: 8,
};
