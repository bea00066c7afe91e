/** Webhook delivery metrics: attempts by outcome, subscriptions marked failing, and lag from the event to its delivery. */
import { counter, histogram } from '@crm/telemetry';

export const webhookAttempts = counter('webhook_delivery_attempts_total', 'Webhook delivery attempts, by outcome (delivered, failed).', [
  'outcome',
]);

export const webhookFailures = counter(
  'webhook_deliveries_given_up_total',
  'Webhook deliveries that ran out of retries (their subscription is marked failing).',
  [],
);

export const webhookLagSeconds = histogram(
  'webhook_delivery_lag_seconds',
  "Time from an event's occurredAt to its successful delivery, retries included.",
  [],
  [0.1, 0.5, 1, 5, 15, 60, 300, 1800, 3600, 21600, 86400],
);
