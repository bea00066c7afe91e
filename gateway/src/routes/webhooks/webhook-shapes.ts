/**
 * Webhooks' request bodies (zod: shapes only; the automation service checks URLs and event types)
 * and response shapes (proto → JSON), with their OpenAPI schemas.
 */
import { pageSchema } from '../records/record-shape';
import { z } from 'zod';
import type { automationV1 } from '@crm/grpc';
import { WEBHOOK_EVENT_TYPES } from '@crm/vocabulary';
import { bodySchema, type JsonSchema } from '../../openapi/operation';
import { nullIfEmpty } from '../validate';

export const webhookBody = z.strictObject({
  url: z.string().min(1),
  events: z.array(z.string()),
  isActive: z.boolean().optional(),
});

export const webhookPatchBody = z.strictObject({
  url: z.string().min(1).optional(),
  events: z.array(z.string()).optional(),
  isActive: z.boolean().optional(),
});

const eventType: JsonSchema = { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] };

/** Fields of a subscription the service fills; a client may send back what it read. */
const READ_ONLY = ['id', 'failingReason', 'createdAt', 'updatedAt'];

/**
 * A body's schema: the zod shape, the automation service's own checks as keywords (a URL of at most
 * 2,048 characters, at least one event type), and the read-only fields a client may send back.
 */
export function webhookBodySchema(zodSchema: z.ZodType): JsonSchema {
  const schema = bodySchema(zodSchema);
  const properties = schema.properties as Record<string, JsonSchema>;
  return {
    ...schema,
    properties: {
      ...properties,
      url: { ...properties.url, format: 'uri', maxLength: 2048 },
      events: { ...properties.events, items: eventType, minItems: 1, description: 'Event types; repeats are dropped.' },
      ...Object.fromEntries(READ_ONLY.map((name) => [name, { readOnly: true, description: 'Read-only; ignored when sent.' }])),
    },
  };
}

export function withoutReadOnly(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const copy = { ...(body as Record<string, unknown>) };
  for (const field of READ_ONLY) delete copy[field];
  return copy;
}

export function webhookJson(webhook: automationV1.Webhook) {
  return {
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    isActive: webhook.isActive,
    failingReason: nullIfEmpty(webhook.failingReason),
    createdAt: webhook.createdAt,
    updatedAt: webhook.updatedAt,
  };
}

export function deliveryJson(delivery: automationV1.WebhookDelivery) {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    type: delivery.type,
    attempt: delivery.attempt,
    status: delivery.status,
    responseStatus: delivery.responseStatus || null,
    durationMs: delivery.durationMs,
    error: nullIfEmpty(delivery.error),
    responseExcerpt: nullIfEmpty(delivery.responseExcerpt),
    createdAt: delivery.createdAt,
  };
}

const timestamp: JsonSchema = { type: 'string', format: 'date-time' };

export const webhookSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'url', 'events', 'isActive', 'failingReason', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    events: { type: 'array', items: eventType },
    isActive: { type: 'boolean' },
    failingReason: { type: ['string', 'null'], description: 'Why a delivery gave up after its retries; null while healthy.' },
    createdAt: timestamp,
    updatedAt: timestamp,
  },
};

export const createdWebhookSchema: JsonSchema = {
  ...webhookSchema,
  required: [...(webhookSchema.required as string[]), 'secret'],
  properties: {
    ...(webhookSchema.properties as JsonSchema),
    secret: { type: 'string', description: 'The signing secret; shown only here.' },
  },
};

export const secretSchema: JsonSchema = { type: 'object', required: ['secret'], properties: { secret: { type: 'string' } } };

export const testEventSchema: JsonSchema = { type: 'object', required: ['eventId'], properties: { eventId: { type: 'string' } } };

const paginated = (items: JsonSchema): JsonSchema => pageSchema(items, 'A page, newest first.', { cursor: true });

export const webhookListSchema = paginated(webhookSchema);

export const deliveryListSchema = paginated({
  type: 'object',
  required: ['id', 'eventId', 'type', 'attempt', 'status', 'responseStatus', 'durationMs', 'error', 'createdAt'],
  properties: {
    id: { type: 'string' },
    eventId: { type: 'string', description: "The envelope's id and X-CRM-Event-Id; a redelivery keeps it." },
    type: eventType,
    attempt: { type: 'integer' },
    status: { type: 'string', enum: ['delivered', 'failed'] },
    responseStatus: { type: ['integer', 'null'] },
    durationMs: { type: 'integer' },
    error: { type: ['string', 'null'] },
    responseExcerpt: { type: ['string', 'null'], description: "The first bytes of the receiver's answer." },
    createdAt: timestamp,
  },
});
