/** Translation only: proto ↔ the webhook service's calls. */
import { apiTimestamp } from '@crm/vocabulary';
import type { automationV1, CallContext, UnaryHandler } from '@crm/grpc';
import type { Caller } from '../application/caller';
import type { WebhookService, WebhookView } from '../application/webhook-service';
import { pageFields, pagingOf } from './page-fields';
import type { WebhookDeliveryDocument } from '../domain/webhook-model';

type M = automationV1.AutomationServiceMethods;
type WebhookMethod =
  | 'CreateWebhook'
  | 'ListWebhooks'
  | 'GetWebhook'
  | 'UpdateWebhook'
  | 'DeleteWebhook'
  | 'RotateWebhookSecret'
  | 'SendWebhookTest'
  | 'ListWebhookDeliveries'
  | 'RedeliverWebhook';
export type WebhookHandlers = { [K in WebhookMethod]: UnaryHandler<M[K]['request'], M[K]['response']> };

function webhookMessage(webhook: WebhookView): automationV1.Webhook {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    isActive: webhook.isActive,
    failingReason: webhook.failingReason ?? '',
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
    secret: webhook.secret ?? '',
  };
}

function deliveryMessage(delivery: WebhookDeliveryDocument): automationV1.WebhookDelivery {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    type: delivery.type,
    attempt: delivery.attempt,
    status: delivery.status,
    responseStatus: delivery.responseStatus ?? 0,
    durationMs: delivery.durationMs,
    error: delivery.error ?? '',
    responseExcerpt: delivery.responseExcerpt ?? '',
    createdAt: apiTimestamp(delivery.createdAt),
  };
}

export function webhookHandlers(webhooks: WebhookService, callerOf: (context: CallContext) => Caller): WebhookHandlers {
  return {
    CreateWebhook: async (r, c) => ({
      webhook: webhookMessage(await webhooks.create(callerOf(c), { url: r.url, events: r.events, isActive: r.isActive })),
    }),
    ListWebhooks: async (r, c) => {
      const page = await webhooks.list(callerOf(c), pagingOf(r));
      return { ...pageFields(page), webhooks: page.items.map(webhookMessage) };
    },
    GetWebhook: async (r, c) => ({ webhook: webhookMessage(await webhooks.get(callerOf(c), r.id)) }),
    UpdateWebhook: async (r, c) => ({
      webhook: webhookMessage(
        await webhooks.update(callerOf(c), r.id, { url: r.url, events: r.updateEvents ? r.events : undefined, isActive: r.isActive }),
      ),
    }),
    DeleteWebhook: async (r, c) => {
      await webhooks.delete(callerOf(c), r.id);
      return {};
    },
    RotateWebhookSecret: async (r, c) => ({ secret: await webhooks.rotateSecret(callerOf(c), r.id) }),
    SendWebhookTest: async (r, c) => ({ eventId: await webhooks.sendTest(callerOf(c), r.id, c.requestId ?? r.id) }),
    ListWebhookDeliveries: async (r, c) => {
      const page = await webhooks.listDeliveries(callerOf(c), r.webhookId, pagingOf(r));
      return { ...pageFields(page), deliveries: page.items.map(deliveryMessage) };
    },
    RedeliverWebhook: async (r, c) => {
      await webhooks.redeliver(callerOf(c), r.webhookId, r.deliveryId, c.requestId ?? r.deliveryId);
      return {};
    },
  };
}
