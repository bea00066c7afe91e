/**
 * An operator's view of one work queue's dead letters on RabbitMQ: list them without taking them
 * (each is fetched unacknowledged and handed back when the channel closes), and replay them into
 * their queue with a fresh retry budget (published with confirms, then removed from `<queue>.dead`).
 */
import { connect, type ChannelModel, type ConfirmChannel, type GetMessage } from 'amqplib';
import { deadQueueName } from './topology';
import { decodeMessage, FIRST_DELIVERY_HEADER, republishOptions, RETRIES_HEADER } from './message-codec';

export interface DeadLetterSummary {
  id: string;
  type: string;
  correlationId: string;
  occurredAt: string;
  /** Why the broker moved it: `rejected` (its handler failed for good) or `delivery_limit` (returned unsettled too often). */
  reason: string;
  /** When it was dead-lettered (ISO 8601), when the broker says. */
  deadAt: string | null;
  /** Deliveries after a failure before it was dead-lettered. */
  retries: number;
}

export class DeadLetterQueue {
  private constructor(
    private readonly connection: ChannelModel,
    /** The work queue's full name (with any prefix). */
    readonly queueName: string,
  ) {}

  static async open(url: string, queueName: string): Promise<DeadLetterQueue> {
    return new DeadLetterQueue(await connect(url), queueName);
  }

  /** Up to `limit` dead letters, oldest first, and how many there are in all. */
  async list(limit: number): Promise<{ total: number; letters: DeadLetterSummary[] }> {
    const channel = await this.connection.createChannel();
    try {
      const { messageCount } = await channel.checkQueue(deadQueueName(this.queueName));
      const letters: DeadLetterSummary[] = [];
      while (letters.length < Math.min(limit, messageCount)) {
        const delivery = await channel.get(deadQueueName(this.queueName), { noAck: false });
        if (!delivery) break;
        letters.push(summary(delivery));
      }
      return { total: messageCount, letters };
    } finally {
      // Closing hands back every fetched letter, unchanged.
      await channel.close().catch(() => undefined);
    }
  }

  /** Moves the dead letters `select` picks (all when absent) back into the work queue; returns their summaries. */
  async replay(select?: (letter: DeadLetterSummary) => boolean): Promise<DeadLetterSummary[]> {
    const channel: ConfirmChannel = await this.connection.createConfirmChannel();
    try {
      await channel.checkQueue(this.queueName);
      const { messageCount } = await channel.checkQueue(deadQueueName(this.queueName));
      const replayed: DeadLetterSummary[] = [];
      for (let seen = 0; seen < messageCount; seen += 1) {
        const delivery = await channel.get(deadQueueName(this.queueName), { noAck: false });
        if (!delivery) break;
        const letter = summary(delivery);
        if (select && !select(letter)) continue;
        // A fresh budget: the retry clock headers go, as do the broker's own.
        const options = republishOptions(delivery, {});
        delete options.headers?.[RETRIES_HEADER];
        delete options.headers?.[FIRST_DELIVERY_HEADER];
        channel.sendToQueue(this.queueName, delivery.content, options);
        await channel.waitForConfirms();
        channel.ack(delivery);
        replayed.push(letter);
      }
      return replayed;
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.connection.close().catch(() => undefined);
  }
}

function summary(delivery: GetMessage): DeadLetterSummary {
  const headers = delivery.properties.headers ?? {};
  const deaths = headers['x-death'] as { reason?: string; time?: { value?: number } | Date }[] | undefined;
  const time = deaths?.[0]?.time;
  const seconds = time instanceof Date ? time.getTime() / 1000 : time?.value;
  let id = String(delivery.properties.messageId ?? '');
  let type = String(delivery.properties.type ?? '');
  let correlationId = String(delivery.properties.correlationId ?? '');
  let occurredAt = '';
  try {
    const message = decodeMessage(delivery);
    ({ id, type, correlationId, occurredAt } = message);
  } catch {
    // Undecodable: the AMQP properties are all there is.
  }
  return {
    id,
    type,
    correlationId,
    occurredAt,
    reason: String(headers['x-first-death-reason'] ?? deaths?.[0]?.reason ?? 'unknown'),
    deadAt: typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null,
    retries: Number(headers[RETRIES_HEADER] ?? 0) || 0,
  };
}
