import type { Client } from 'openapi-fetch';
import type { Answer, ListQuery, Webhook, WebhookCreate, WebhookCreated, WebhookDelivery, WebhookUpdate } from '../api-types';
import { CursorList } from '../cursor-list';
import type { paths } from '../generated/crm-api';
import { answer, createHeaders, type CreateOptions } from './answer';

/** Webhook subscriptions: writes are for admins; members and API keys may read. */
export class WebhooksResource {
  constructor(private readonly api: Client<paths>) {}

  list(query: ListQuery<'listWebhooks'> = {}): CursorList<Webhook> {
    return new CursorList((cursor) => answer(this.api.GET('/api/settings/webhooks/', { params: { query: { ...query, cursor } } })));
  }

  get(id: string): Promise<Webhook> {
    return answer(this.api.GET('/api/settings/webhooks/{id}/', { params: { path: { id } } }));
  }

  /** The answer holds the signing `secret`, shown only here. */
  create(webhook: WebhookCreate, options?: CreateOptions): Promise<WebhookCreated> {
    return answer(this.api.POST('/api/settings/webhooks/', { body: webhook, headers: createHeaders(options) }));
  }

  update(id: string, changes: WebhookUpdate): Promise<Webhook> {
    return answer(this.api.PATCH('/api/settings/webhooks/{id}/', { params: { path: { id } }, body: changes }));
  }

  async delete(id: string): Promise<void> {
    await answer(this.api.DELETE('/api/settings/webhooks/{id}/', { params: { path: { id } } }));
  }

  /** A new signing secret; the previous one keeps signing for 24 hours. */
  rotateSecret(id: string): Promise<Answer<'rotateWebhookSecret', 200>> {
    return answer(this.api.POST('/api/settings/webhooks/{id}/rotate-secret/', { params: { path: { id } } }));
  }

  /** Sends a `webhook.test` event to the subscription. */
  test(id: string): Promise<Answer<'sendWebhookTest', 202>> {
    return answer(this.api.POST('/api/settings/webhooks/{id}/test/', { params: { path: { id } } }));
  }

  deliveries(id: string, query: ListQuery<'listWebhookDeliveries'> = {}): CursorList<WebhookDelivery> {
    return new CursorList((cursor) =>
      answer(this.api.GET('/api/settings/webhooks/{id}/deliveries/', { params: { path: { id }, query: { ...query, cursor } } })),
    );
  }

  /** One more attempt of a logged delivery's event (same event id), with no retries of its own. */
  async redeliver(id: string, deliveryId: string): Promise<void> {
    await answer(this.api.POST('/api/settings/webhooks/{id}/deliveries/{deliveryId}/redeliver/', { params: { path: { id, deliveryId } } }));
  }
}
