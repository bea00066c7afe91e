/**
 * Webhooks' request bodies (routes/field-table.ts: the gateway checks shapes, the automation service
 * URLs and event types) and response shapes (proto → JSON), with their OpenAPI schemas.
 */
import { pageSchema } from '../records/record-shape';
import { z } from 'zod';
import type { automationV1 } from '@crm/grpc';
import { WEBHOOK_EVENT_TYPES } from '@crm/vocabulary';
import type { JsonSchema } from '../../openapi/operation';
import { bodyCheck, bodySchemaOf, partialTable, type BodyTable } from '../field-table';
import { nullIfEmpty } from '../validate';

const eventType: JsonSchema = { type: 'string', enum: [...WEBHOOK_EVENT_TYPES] };

/** A subscription as a client sends it; the service checks the URL (at most 2,048 characters) and the event types. */
const webhookFields = {
  url: { check: z.string().min(1), rules: { type: 'string', minLength: 1, format: 'uri', maxLength: 2048 }, required: true },
  events: {
    check: z.array(z.string()),
    rules: { type: 'array', items: eventType, minItems: 1, description: 'Event types; repeats are dropped.' },
    required: true,
  },
  isActive: { check: z.boolean().optional(), rules: { type: 'boolean' } },
} satisfies BodyTable;

const webhookPatchFields = partialTable(webhookFields);

export const webhookBody = bodyCheck(webhookFields);
export const webhookPatchBody = bodyCheck(webhookPatchFields);

/** Fields of a subscription the service fills; a client may send back what it read. */
export const READ_ONLY_WEBHOOK_FIELDS = ['id', 'failingReason', 'createdAt', 'updatedAt'];

export const webhookCreateSchema = bodySchemaOf(webhookFields, 'create', { readOnly: READ_ONLY_WEBHOOK_FIELDS });
export const webhookUpdateSchema = bodySchemaOf(webhookPatchFields, 'update', { readOnly: READ_ONLY_WEBHOOK_FIELDS });

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
