/**
 * Outbound webhooks (/api/settings/webhooks/): subscriptions, their delivery log, redelivery and a
 * test event. REST ↔ gRPC translation only; the automation service holds subscriptions and
 * delivers. Admins manage, members read: every write under /api/settings/ goes through the
 * gateway's one admin check (auth/admin-guard.ts) before it gets here.
 */
import { listParameters } from '../records/record-routes';
import { Router } from 'express';
import { AUTOMATION_DEADLINE_MS, lazyAutomationClient, type AutomationClient } from '../../clients/automation-client';
import { oneTimeSecret } from '../../idempotency/idempotent-posts';
import { idParameter, operation, type OpenApiPaths } from '../../openapi/operation';
import type { GatewayConfig } from '../../config';
import { callerContext } from '../../request-context';
import { paginated, readListQuery } from '../records/list-query';
import type { RouteDeps, RouteModule } from '../route-module';
import { withoutReadOnly } from '../field-table';
import { parseBody, pathId } from '../validate';
import {
  createdWebhookJson,
  createdWebhookSchema,
  deliveryJson,
  deliveryListSchema,
  secretSchema,
  testEventSchema,
  webhookBody,
  webhookJson,
  webhookListSchema,
  webhookPatchBody,
  webhookSchema,
  webhookCreateSchema,
  webhookUpdateSchema,
  READ_ONLY_WEBHOOK_FIELDS,
} from './webhook-shapes';

const BASE = '/api/settings/webhooks';

const options = { timeoutMs: AUTOMATION_DEADLINE_MS };

export function webhookRoutes(
  deps: RouteDeps,
  client: AutomationClient = lazyAutomationClient(deps.config.AUTOMATION_GRPC_ADDR, deps.internalTls),
): RouteModule {
  const router = Router();
  subscriptionRoutes(router, client, deps.config);
  deliveryRoutes(router, client, deps.config);
  return { name: 'webhooks', access: 'authenticated', router, paths: webhookPaths() };
}

/** The subscriptions: list, create, read, update, delete. */
function subscriptionRoutes(router: Router, client: AutomationClient, config: GatewayConfig): void {
  router.get(BASE, async (req, res) => {
    const list = readListQuery(req, [], { cursor: true });
    const page = await client.call(
      'ListWebhooks',
      { offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      callerContext(res),
      options,
    );
    res.json(paginated(req, config, list, page.total, page.webhooks.map(webhookJson), page.nextCursor));
  });

  router.post(BASE, oneTimeSecret, async (req, res) => {
    const body = parseBody(webhookBody, withoutReadOnly(req.body, READ_ONLY_WEBHOOK_FIELDS));
    const { webhook } = await client.call('CreateWebhook', body, callerContext(res), options);
    res.status(201).json(createdWebhookJson(webhook!));
  });

  router.get(`${BASE}/:id`, async (req, res) => {
    const { webhook } = await client.call('GetWebhook', { id: pathId(req.params.id) }, callerContext(res), options);
    res.json(webhookJson(webhook!));
  });

  router.patch(`${BASE}/:id`, async (req, res) => {
    const id = pathId(req.params.id);
    const body = parseBody(webhookPatchBody, withoutReadOnly(req.body, READ_ONLY_WEBHOOK_FIELDS));
    const { webhook } = await client.call(
      'UpdateWebhook',
      { id, url: body.url, events: body.events ?? [], updateEvents: body.events !== undefined, isActive: body.isActive },
      callerContext(res),
      options,
    );
    res.json(webhookJson(webhook!));
  });

  router.delete(`${BASE}/:id`, async (req, res) => {
    await client.call('DeleteWebhook', { id: pathId(req.params.id) }, callerContext(res), options);
    res.status(204).end();
  });
}

/** A subscription's secret, test event and delivery log, and redelivery. */
function deliveryRoutes(router: Router, client: AutomationClient, config: GatewayConfig): void {
  router.post(`${BASE}/:id/rotate-secret`, oneTimeSecret, async (req, res) => {
    const { secret } = await client.call('RotateWebhookSecret', { id: pathId(req.params.id) }, callerContext(res), options);
    res.json({ secret });
  });

  router.post(`${BASE}/:id/test`, async (req, res) => {
    const { eventId } = await client.call('SendWebhookTest', { id: pathId(req.params.id) }, callerContext(res), options);
    res.status(202).json({ eventId });
  });

  router.get(`${BASE}/:id/deliveries`, async (req, res) => {
    const webhookId = pathId(req.params.id);
    const list = readListQuery(req, [], { cursor: true });
    const { deliveries, total, nextCursor } = await client.call(
      'ListWebhookDeliveries',
      { webhookId, offset: list.offset, limit: list.limit, cursor: list.cursor ?? '' },
      callerContext(res),
      options,
    );
    res.json(paginated(req, config, list, total, deliveries.map(deliveryJson), nextCursor));
  });

  router.post(`${BASE}/:id/deliveries/:deliveryId/redeliver`, async (req, res) => {
    const request = { webhookId: pathId(req.params.id), deliveryId: pathId(req.params.deliveryId) };
    await client.call('RedeliverWebhook', request, callerContext(res), options);
    res.status(202).end();
  });
}

const tags = ['webhooks'];
const webhookId = idParameter('The subscription (`whk_...`).');
const pagingParameters = listParameters([], { cursor: true });
const ADMIN_ONLY = 'Admins only: members and API keys answer 403.';
const TARGET_RULES =
  '`url` must be https:// and must not name or resolve to a loopback, private, link-local or metadata address, in any spelling (422 on `url`); the operator setting WEBHOOK_ALLOW_PRIVATE_TARGETS=true lifts this for development.';

/** The OpenAPI part of {@link webhookRoutes}, in the same order. */
export function webhookPaths(): OpenApiPaths {
  return { ...subscriptionPaths(), ...deliveryPaths() };
}

function subscriptionPaths(): OpenApiPaths {
  return {
    '/api/settings/webhooks/': {
      get: operation({
        operationId: 'listWebhooks',
        summary: "The workspace's webhook subscriptions, newest first (never their secrets)",
        tags,
        authenticated: true,
        parameters: pagingParameters,
        responses: { 200: { description: 'A page of subscriptions.', schema: webhookListSchema } },
        errors: [400],
      }),
      post: operation({
        operationId: 'createWebhook',
        summary: 'Subscribe a URL to event types',
        description: `${TARGET_RULES} Unknown event types answer 422 on \`events\`. The answer carries the signing secret, shown only this once. ${ADMIN_ONLY}`,
        tags,
        authenticated: true,
        requestBody: webhookCreateSchema,
        responses: { 201: { description: 'The subscription and its secret.', schema: createdWebhookSchema } },
        errors: [403],
      }),
    },
    '/api/settings/webhooks/{id}/': {
      get: operation({
        operationId: 'getWebhook',
        summary: 'Read a subscription (without its secret)',
        tags,
        authenticated: true,
        parameters: [webhookId],
        responses: { 200: { description: 'The subscription.', schema: webhookSchema } },
        errors: [404],
      }),
      patch: operation({
        operationId: 'updateWebhook',
        summary: 'Change url, events or isActive',
        description: `${TARGET_RULES} ${ADMIN_ONLY}`,
        tags,
        authenticated: true,
        parameters: [webhookId],
        requestBody: webhookUpdateSchema,
        responses: { 200: { description: 'The subscription.', schema: webhookSchema } },
        errors: [403, 404],
      }),
      delete: operation({
        operationId: 'deleteWebhook',
        summary: 'Delete a subscription; deliveries under way stop',
        description: ADMIN_ONLY,
        tags,
        authenticated: true,
        parameters: [webhookId],
        responses: { 204: { description: 'Deleted; no body.' } },
        errors: [403, 404],
      }),
    },
  };
}

function deliveryPaths(): OpenApiPaths {
  return {
    '/api/settings/webhooks/{id}/rotate-secret/': {
      post: operation({
        operationId: 'rotateWebhookSecret',
        summary: 'A new signing secret; the old one also signs for 24 hours',
        description: `During the overlap X-CRM-Signature carries one v1= per valid secret. ${ADMIN_ONLY}`,
        tags,
        authenticated: true,
        parameters: [webhookId],
        responses: { 200: { description: 'The new secret, shown only here.', schema: secretSchema } },
        errors: [403, 404, 409],
      }),
    },
    '/api/settings/webhooks/{id}/test/': {
      post: operation({
        operationId: 'sendWebhookTest',
        summary: 'Queue a webhook.test event to the subscription, whatever its events',
        description: ADMIN_ONLY,
        tags,
        authenticated: true,
        parameters: [webhookId],
        responses: { 202: { description: 'Queued; the id of the test event.', schema: testEventSchema } },
        errors: [403, 404],
      }),
    },
    '/api/settings/webhooks/{id}/deliveries/': {
      get: operation({
        operationId: 'listWebhookDeliveries',
        summary: "The subscription's delivery attempts, newest first (one item per attempt)",
        tags,
        authenticated: true,
        parameters: [webhookId, ...pagingParameters],
        responses: { 200: { description: 'A page of attempts.', schema: deliveryListSchema } },
        errors: [400, 404],
      }),
    },
    '/api/settings/webhooks/{id}/deliveries/{deliveryId}/redeliver/': {
      post: operation({
        operationId: 'redeliverWebhook',
        summary: "Send a logged attempt's event again, with the same event id",
        description: `One more attempt, logged as such, without retries of its own. ${ADMIN_ONLY}`,
        tags,
        authenticated: true,
        parameters: [
          webhookId,
          { name: 'deliveryId', in: 'path', required: true, description: 'The attempt (`whd_...`).', schema: { type: 'string' } },
        ],
        responses: { 202: { description: 'Queued; no body.' } },
        errors: [403, 404],
      }),
    },
  };
}
