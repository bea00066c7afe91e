/**
 * How a BusMessage travels over AMQP: the whole message as a JSON body (the body is the source of
 * truth), mirrored into AMQP properties so broker tools and tracing see id, type and headers.
 */
import type { ConsumeMessage, Message, Options } from 'amqplib';
import { injectTraceContext } from '@crm/telemetry';
import { MAX_MESSAGE_BYTES, MessageTooLargeError, type BusMessage, type DeliveryInfo } from '../port';
import type { RetryClock } from '../retry-policy';

/** AMQP headers of a retried message: deliveries after a failure so far, and when the first delivery was (Unix ms). */
export const RETRIES_HEADER = 'x-crm-retries';
export const FIRST_DELIVERY_HEADER = 'x-crm-first-delivery-at';

/** Headers the broker adds on delivery and dead-lettering; dropped when a message is republished. */
const BROKER_HEADERS = [
  'x-delivery-count',
  'x-death',
  'x-first-death-exchange',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-last-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
];

export function encodeMessage(
  message: BusMessage,
  extraHeaders: Record<string, unknown> = {},
): { content: Buffer; options: Options.Publish } {
  const headers: Record<string, unknown> = { ...message.headers, ...extraHeaders };
  // The publisher's trace (the request, or the outbox event's stored context) travels in the AMQP headers.
  injectTraceContext(headers);
  const content = Buffer.from(JSON.stringify(message));
  if (content.length > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(message.type, content.length);
  return {
    content,
    options: {
      persistent: true,
      contentType: 'application/json',
      messageId: message.id,
      type: message.type,
      correlationId: message.correlationId,
      timestamp: Math.floor(Date.parse(message.occurredAt) / 1000) || Math.floor(Date.now() / 1000),
      headers,
    },
  };
}

export class UndecodableMessageError extends Error {}

export function decodeMessage(delivery: Message): BusMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(delivery.content.toString('utf8'));
  } catch {
    throw new UndecodableMessageError(`message ${delivery.properties.messageId ?? '?'} is not JSON`);
  }
  if (!isBusMessage(parsed)) throw new UndecodableMessageError(`message ${delivery.properties.messageId ?? '?'} is not a bus message`);
  return parsed;
}

/** Where a delivery stands in its retries; a message never retried starts its clock now. */
export function retryClock(delivery: ConsumeMessage, now: number): RetryClock {
  const retries = Number(delivery.properties.headers?.[RETRIES_HEADER] ?? 0);
  const firstDeliveredAt = Number(delivery.properties.headers?.[FIRST_DELIVERY_HEADER]);
  return {
    retries: Number.isInteger(retries) && retries > 0 ? retries : 0,
    firstDeliveredAt: Number.isFinite(firstDeliveredAt) && firstDeliveredAt > 0 ? firstDeliveredAt : now,
  };
}

/** Retries (our header) plus returns, which the quorum queue counts in `x-delivery-count` (absent on the first delivery). */
export function deliveryInfo(delivery: ConsumeMessage, clock: RetryClock, retryInMs: number | null): DeliveryInfo {
  const counted = Number(delivery.properties.headers?.['x-delivery-count'] ?? 0);
  const returns = Number.isFinite(counted) && counted > 0 ? counted : delivery.fields.redelivered ? 1 : 0;
  const attempt = clock.retries + returns + 1;
  return { attempt, redelivered: attempt > 1, retryInMs };
}

/** The publish options of a delivery, as they should be when it is published again. */
export function republishOptions(delivery: Message, headers: Record<string, unknown>): Options.Publish {
  const { properties } = delivery;
  const kept = { ...properties.headers };
  for (const name of BROKER_HEADERS) delete kept[name];
  return {
    persistent: true,
    contentType: properties.contentType,
    messageId: properties.messageId,
    type: properties.type,
    correlationId: properties.correlationId,
    timestamp: properties.timestamp,
    headers: { ...kept, ...headers },
  };
}

function isBusMessage(value: unknown): value is BusMessage {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<BusMessage>;
  return (
    typeof candidate.id === 'string' &&
    typeof candidate.type === 'string' &&
    typeof candidate.correlationId === 'string' &&
    typeof candidate.occurredAt === 'string'
  );
}
