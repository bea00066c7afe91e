/**
 * One consumer of one queue on its own channel (so prefetch is per queue). Acknowledges a delivery
 * only after its handler resolves (several at a time where it can: channel-acks.ts); dead-letters it when the handler throws a DeadLetterDecision,
 * and returns it to the queue on any other error. Survives reconnects: the bus attaches it again
 * to every new connection until it is stopped.
 */
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Logger } from '@crm/observability';
import type { Consumer } from '../port';
import type { DeadLetterReason } from '../retry-policy';
import { ChannelAcks } from './channel-acks';
import { UndecodableMessageError } from './message-codec';

export type DeliveryHandler = (delivery: ConsumeMessage) => Promise<void>;

/** Thrown by a delivery handler to send the delivery to the queue's dead-letter queue. */
export class DeadLetterDecision extends Error {
  constructor(
    readonly reason: DeadLetterReason,
    cause: unknown,
  ) {
    super(`dead-lettered (${reason}): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export interface AmqpConsumerSettings {
  queueName: string;
  prefetch: number;
  /** How long stop() waits for handlers under way before their messages are handed back. */
  stopGraceMs: number;
  /** Called when the channel dies while the connection lives on (a channel-level error). */
  onChannelLost(consumer: AmqpConsumer): void;
  onStopped(consumer: AmqpConsumer): void;
}

export class AmqpConsumer implements Consumer {
  private attachedTo: ChannelModel | undefined;
  private channel: Channel | undefined;
  /** The acknowledgements of the current channel. */
  private acks: ChannelAcks | undefined;
  private consumerTag: string | undefined;
  private readonly handlersUnderWay = new Set<Promise<void>>();
  private stopping = false;

  constructor(
    private readonly settings: AmqpConsumerSettings,
    private readonly handleDelivery: DeliveryHandler,
    private readonly logger: Logger,
  ) {}

  get queueName(): string {
    return this.settings.queueName;
  }

  /** Starts consuming on `model`; a no-op when already consuming there or stopped. */
  async attach(model: ChannelModel): Promise<void> {
    if (this.stopping || this.attachedTo === model) return;
    this.attachedTo = model;
    const channel = await model.createChannel();
    this.channel = channel;
    this.acks = new ChannelAcks(channel, (err) => this.logger.debug({ err, queue: this.queueName }, 'settling on a closing channel'));
    channel.on('error', (err: Error) => this.logger.warn({ err, queue: this.queueName }, 'consumer channel error'));
    channel.on('close', () => this.onChannelClosed(model, channel));
    await channel.prefetch(this.settings.prefetch);
    const { consumerTag } = await channel.consume(this.queueName, (delivery) => this.receive(channel, delivery));
    this.consumerTag = consumerTag;
    if (this.stopping) await this.closeChannel();
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const { channel, consumerTag } = this;
    if (channel && consumerTag) await channel.cancel(consumerTag).catch(() => undefined);
    await this.handlersFinishedOrGraceOver();
    await this.closeChannel();
    this.settings.onStopped(this);
  }

  private receive(channel: Channel, delivery: ConsumeMessage | null): void {
    if (delivery === null) {
      this.logger.warn({ queue: this.queueName }, 'the broker cancelled the consumer (queue deleted?)');
      return;
    }
    const acks = this.acks;
    if (!acks || acks.channel !== channel) return;
    acks.received(delivery);
    const handling = this.handle(acks, delivery);
    this.handlersUnderWay.add(handling);
    void handling.finally(() => this.handlersUnderWay.delete(handling));
  }

  private async handle(acks: ChannelAcks, delivery: ConsumeMessage): Promise<void> {
    try {
      await this.handleDelivery(delivery);
      // A channel that has closed already gave its unacknowledged messages back to the broker.
      if (acks === this.acks) acks.succeeded(delivery);
    } catch (err) {
      const dead = err instanceof DeadLetterDecision || err instanceof UndecodableMessageError;
      const reason = err instanceof DeadLetterDecision ? err.reason : dead ? 'undecodable' : undefined;
      this.logger.warn(
        { err, queue: this.queueName, messageId: delivery.properties.messageId, type: delivery.properties.type, reason },
        dead ? 'message dead-lettered' : 'handler failed; message returned to the queue',
      );
      if (acks === this.acks) acks.failed(delivery, !dead);
    }
  }

  private async handlersFinishedOrGraceOver(): Promise<void> {
    if (this.handlersUnderWay.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.settings.stopGraceMs);
    });
    await Promise.race([Promise.allSettled([...this.handlersUnderWay]), graceOver]);
    clearTimeout(timer);
    if (this.handlersUnderWay.size > 0) {
      this.logger.warn(
        { queue: this.queueName, handlers: this.handlersUnderWay.size },
        'handlers still running at stop; their messages go back to the queue',
      );
    }
  }

  private async closeChannel(): Promise<void> {
    const channel = this.channel;
    this.acks?.flush();
    this.acks = undefined;
    this.channel = undefined;
    this.consumerTag = undefined;
    await channel?.close().catch(() => undefined);
  }

  private onChannelClosed(model: ChannelModel, channel: Channel): void {
    if (this.channel === channel) {
      this.channel = undefined;
      this.acks = undefined;
      this.consumerTag = undefined;
    }
    if (this.attachedTo === model && !this.stopping) {
      this.attachedTo = undefined;
      this.settings.onChannelLost(this);
    }
  }
}
