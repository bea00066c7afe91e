/**
 * Webhooks' request bodies (routes/field-table.ts: the gateway checks shapes, the automation service
 * URLs and event types) and response shapes (proto → JSON), with their OpenAPI schemas.
 */
import { pageSchema } from '../records/record-shape';
import { z } from 'zod';
import type { automationV1 } from '@crm/grpc';
import { WEBHOOK_EVENT_TYPES } from '@crm/vocabulary';
import type { JsonSchema } from '../../openapi/operation';
import {
  answerSchema,
  bodyCheck,
  bodySchemaOf,
  partialTable,
  readOnlyFields,
  renderAnswer,
  type AnswerTable,
  type BodyTable,
} from '../field-table';
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

const timestamp: JsonSchema = { type: 'string', format: 'date-time' };

const webhookAnswer: AnswerTable<automationV1.Webhook> = {
  id: { schema: { type: 'string' }, value: (w) => w.id },
  url: { schema: { type: 'string', format: 'uri' }, value: (w) => w.url },
  events: { schema: { type: 'array', items: eventType }, value: (w) => w.events },
  isActive: { schema: { type: 'boolean' }, value: (w) => w.isActive },
  failingReason: {
    schema: { type: ['string', 'null'], description: 'Why a delivery gave up after its retries; null while healthy.' },
    value: (w) => nullIfEmpty(w.failingReason),
  },
  createdAt: { schema: timestamp, value: (w) => w.createdAt },
  updatedAt: { schema: timestamp, value: (w) => w.updatedAt },
};

/** The answer to a create: the subscription and its signing secret, shown only there. */
const createdWebhookAnswer: AnswerTable<automationV1.Webhook> = {
  ...webhookAnswer,
  secret: { schema: { type: 'string', description: 'The signing secret; shown only here.' }, value: (w) => w.secret },
};

/** Fields of a subscription the service fills; a client may send back what it read. */
export const READ_ONLY_WEBHOOK_FIELDS = readOnlyFields(webhookAnswer, webhookFields);

export const webhookCreateSchema = bodySchemaOf(webhookFields, 'create', { readOnly: READ_ONLY_WEBHOOK_FIELDS });
export const webhookUpdateSchema = bodySchemaOf(webhookPatchFields, 'update', { readOnly: READ_ONLY_WEBHOOK_FIELDS });

export const webhookJson = (webhook: automationV1.Webhook) => renderAnswer(webhookAnswer, webhook);
export const createdWebhookJson = (webhook: automationV1.Webhook) => renderAnswer(createdWebhookAnswer, webhook);
export const webhookSchema = answerSchema(webhookAnswer);
export const createdWebhookSchema = answerSchema(createdWebhookAnswer);

const deliveryAnswer: AnswerTable<automationV1.WebhookDelivery> = {
  id: { schema: { type: 'string' }, value: (d) => d.id },
  eventId: {
    schema: { type: 'string', description: "The envelope's id and X-CRM-Event-Id; a redelivery keeps it." },
    value: (d) => d.eventId,
  },
  type: { schema: eventType, value: (d) => d.type },
  attempt: { schema: { type: 'integer' }, value: (d) => d.attempt },
  status: { schema: { type: 'string', enum: ['delivered', 'failed'] }, value: (d) => d.status },
  responseStatus: { schema: { type: ['integer', 'null'] }, value: (d) => d.responseStatus || null },
  durationMs: { schema: { type: 'integer' }, value: (d) => d.durationMs },
  error: { schema: { type: ['string', 'null'] }, value: (d) => nullIfEmpty(d.error) },
  responseExcerpt: {
    schema: { type: ['string', 'null'], description: "The first bytes of the receiver's answer." },
    value: (d) => nullIfEmpty(d.responseExcerpt),
  },
  createdAt: { schema: timestamp, value: (d) => d.createdAt },
};

export const deliveryJson = (delivery: automationV1.WebhookDelivery) => renderAnswer(deliveryAnswer, delivery);

export const secretSchema: JsonSchema = { type: 'object', required: ['secret'], properties: { secret: { type: 'string' } } };

export const testEventSchema: JsonSchema = { type: 'object', required: ['eventId'], properties: { eventId: { type: 'string' } } };

const paginated = (items: JsonSchema): JsonSchema => pageSchema(items, 'A page, newest first.', { cursor: true });

export const webhookListSchema = paginated(webhookSchema);

export const deliveryListSchema = paginated(answerSchema(deliveryAnswer));
