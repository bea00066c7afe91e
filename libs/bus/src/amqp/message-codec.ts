/**
 * How a BusMessage travels over AMQP: the whole message as a JSON body (the body is the source of
 * truth), mirrored into AMQP properties so broker tools and tracing see id, type and headers.
 */
import type { ConsumeMessage, Options } from 'amqplib';
import type { BusMessage, DeliveryInfo } from '../port';

/** Headers the broker adds on dead-lettering; dropped when a delayed message is republished. */
const BROKER_DEATH_HEADERS = [
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
  return {
    content: Buffer.from(JSON.stringify(message)),
    options: {
      persistent: true,
      contentType: 'application/json',
      messageId: message.id,
      type: message.type,
      correlationId: message.correlationId,
      timestamp: Math.floor(Date.parse(message.occurredAt) / 1000) || Math.floor(Date.now() / 1000),
      headers: { ...message.headers, ...extraHeaders },
    },
  };
}

export class UndecodableMessageError extends Error {}

export function decodeMessage(delivery: ConsumeMessage): BusMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(delivery.content.toString('utf8'));
  } catch {
    throw new UndecodableMessageError(`message ${delivery.properties.messageId ?? '?'} is not JSON`);
  }
  if (!isBusMessage(parsed)) throw new UndecodableMessageError(`message ${delivery.properties.messageId ?? '?'} is not a bus message`);
  return parsed;
}

/** The quorum queue counts returns in `x-delivery-count`; absent on the first delivery. */
export function deliveryInfo(delivery: ConsumeMessage): DeliveryInfo {
  const returns = Number(delivery.properties.headers?.['x-delivery-count'] ?? 0);
  const redelivered = delivery.fields.redelivered;
  return { attempt: Number.isFinite(returns) && returns > 0 ? returns + 1 : redelivered ? 2 : 1, redelivered };
}

/** The publish options of a delivery, as they should be when it is published again. */
export function republishOptions(delivery: ConsumeMessage, headers: Record<string, unknown>): Options.Publish {
  const { properties } = delivery;
  const kept = { ...properties.headers };
  for (const name of BROKER_DEATH_HEADERS) delete kept[name];
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
