/**
 * The message bus on RabbitMQ: one connection that reconnects with backoff, a confirm channel for
 * publishing, quorum work queues with dead-letter queues, and delayed delivery through TTL tiers.
 */
import {
  connect,
  type Channel,
  type ChannelModel,
  type ConfirmChannel,
  type ConsumeMessage,
  type Message,
  type Options,
  type RecoveringChannelModel,
} from 'amqplib';
import type { Socket } from 'node:net';
import { CONSUMER_DRAIN_MS, type Logger } from '@crm/observability';
import { withIncomingTraceContext } from '@crm/telemetry';
import {
  UnroutableMessageError,
  type BusMessage,
  type Consumer,
  type MessageBus,
  type MessageHandler,
  type PublishOptions,
  type QueueDefinition,
} from '../port';
import { DEFAULT_RETRY_BUDGET_MS, failureOutcome, RETRY_BACKOFF_MS, retryDelayMs, type RetryClock } from '../retry-policy';
import { AmqpConsumer, DeadLetterDecision, type DeliveryHandler } from './amqp-consumer';
import { DUE_AT_HEADER, nextDelayStep, RETRY_QUEUE_HEADER } from './delay-tiers';
import {
  decodeMessage,
  deliveryInfo,
  encodeMessage,
  FIRST_DELIVERY_HEADER,
  republishOptions,
  retryClock,
  RETRIES_HEADER,
  UndecodableMessageError,
} from './message-codec';
import { DEFAULT_PREFETCH, declareBusTopology, declareWorkQueue, topologyNames, type TopologyNames } from './topology';

export const START_TIMEOUT_MS = 30_000;

/** `work`, or a rejection naming `what` once `ms` have passed. */
async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface AmqpBusOptions {
  url: string;
  /** Deletes every queue of this bus once unused that long (x-expires): for throwaway test topologies only. */
  queueExpiresMs?: number;
  /** The topic exchange; the dead-letter and delay names derive from it. Default `crm.events`. */
  exchange?: string;
  /** How long publish(), schedule() and consume() wait for the broker during an outage. Default 30 s. */
  outageTimeoutMs?: number;
  /** How long stopping waits for handlers under way before their messages go back. Default CONSUMER_DRAIN_MS (15 s), inside the process grace. */
  stopGraceMs?: number;
  /** Connection retries at start before openBus gives up. Default 5 (about 8 s). */
  initialConnectRetries?: number;
  /**
   * How long the first connection, its topology and its consumers may take before the attempt
   * fails (and openBusWhenReachable logs it and tries again). Default START_TIMEOUT_MS (30 s).
   */
  startTimeoutMs?: number;
  /** Waits between deliveries of a failing message. Default RETRY_BACKOFF_MS; tests shorten it. */
  retryBackoffMs?: readonly number[];
}

interface Session {
  model: ChannelModel;
  publisher: ConfirmChannel;
  /**
   * Mandatory publishes awaiting their confirm, by message id, oldest first. The broker sends a
   * message's basic.return before its basic.ack, so a publish sees whether it was returned by the
   * time its confirm arrives.
   */
  unconfirmedMandatory: Map<string, { returned: boolean }[]>;
}

/** The forwarder holds messages for up to the shortest tier (100 ms), so it takes many at once. */
const DELAY_FORWARDER_PREFETCH = 500;
const CHANNEL_REOPEN_DELAY_MS = 1000;

export class AmqpBus implements MessageBus {
  private readonly names: TopologyNames;
  private readonly outageTimeoutMs: number;
  private readonly stopGraceMs: number;
  private connection: RecoveringChannelModel | undefined;
  private session: Session | undefined;
  private readonly sessionWaiters = new Set<{ resolve(session: Session): void; reject(err: Error): void }>();
  private readonly workQueues = new Map<string, QueueDefinition>();
  private readonly consumers = new Set<AmqpConsumer>();
  private readonly delayForwarder: AmqpConsumer;
  private closed = false;

  private constructor(
    private readonly options: AmqpBusOptions,
    private readonly logger: Logger,
  ) {
    this.names = topologyNames(options.exchange, options.queueExpiresMs);
    this.outageTimeoutMs = options.outageTimeoutMs ?? 30_000;
    this.stopGraceMs = options.stopGraceMs ?? CONSUMER_DRAIN_MS;
    this.delayForwarder = this.newConsumer(this.names.delayReturnQueue, DELAY_FORWARDER_PREFETCH, (delivery) =>
      this.forwardDelayed(delivery),
    );
  }

  /** Connects, declares the topology and starts forwarding delayed messages. */
  static async open(options: AmqpBusOptions, logger: Logger): Promise<AmqpBus> {
    const bus = new AmqpBus(options, logger);
    await bus.connect();
    return bus;
  }

  async publish(message: BusMessage, publishOptions: PublishOptions = {}): Promise<void> {
    const { content, options } = encodeMessage(message);
    await this.publishConfirmed(this.names.events, message.type, content, { ...options, mandatory: publishOptions.mandatory === true });
  }

  async schedule(message: BusMessage, delayMs: number): Promise<void> {
    const dueAt = Date.now() + delayMs;
    const step = nextDelayStep(delayMs);
    if (step.kind === 'deliver' && step.waitMs === 0) return this.publish(message);
    const { content, options } = encodeMessage(message, { [DUE_AT_HEADER]: dueAt });
    // Under the shortest tier, straight to the forwarder, which holds it the few milliseconds left.
    const parking = step.kind === 'park' ? this.names.delayTierQueue(step.tier) : this.names.delayReturnQueue;
    await this.publishConfirmed('', parking, content, options);
  }

  async consume(queue: QueueDefinition, handler: MessageHandler): Promise<Consumer> {
    const session = await this.waitForSession();
    await this.withChannel(session.model, (channel) => declareWorkQueue(channel, this.names, queue));
    this.workQueues.set(queue.name, queue);
    const consumer = this.newConsumer(queue.name, queue.prefetch ?? DEFAULT_PREFETCH, (delivery) =>
      this.handleDelivery(queue, handler, delivery),
    );
    this.consumers.add(consumer);
    try {
      await consumer.attach(session.model);
    } catch (err) {
      // After a connection loss the consumer resumes on reconnect; anything else is the caller's to see.
      if (this.session === session) {
        await consumer.stop();
        throw err;
      }
    }
    return consumer;
  }

  async depth(queueName: string): Promise<number | undefined> {
    const session = this.session;
    if (!session) return undefined;
    try {
      return await this.withChannel(session.model, async (channel) => (await channel.checkQueue(queueName)).messageCount);
    } catch {
      return undefined;
    }
  }

  async ping(): Promise<boolean> {
    const session = this.session;
    if (!session) return false;
    try {
      await this.withChannel(session.model, (channel) => channel.checkExchange(this.names.events));
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.sessionWaiters) waiter.reject(new Error('message bus closed'));
    this.sessionWaiters.clear();
    await Promise.all([...this.consumers].map((consumer) => consumer.stop()));
    await this.delayForwarder.stop();
    await this.session?.publisher.waitForConfirms().catch(() => undefined);
    this.session = undefined;
    await this.connection?.close();
    this.logger.info('message bus closed');
  }

  /**
   * Destroys the socket under the current connection, as a broker restart or a network fault
   * would. Exists so tests can exercise reconnection without restarting a shared broker.
   */
  severConnection(): void {
    const connection = this.session?.model.connection as unknown as { stream?: Socket } | undefined;
    connection?.stream?.destroy(new Error('connection severed'));
  }

  private async connect(): Promise<void> {
    const connection = await connect(this.options.url, {
      // Off by default in amqplib: a publish awaiting its confirm then waits on Nagle's delay for
      // its last segment (a 100,000-row import's chunks took 11 s to split instead of 2.3).
      noDelay: true,
      recovery: {
        initialDelay: 250,
        maxDelay: 30_000,
        initialMaxRetries: this.options.initialConnectRetries ?? 5,
        waitForConnect: false,
        setup: (model: ChannelModel) => this.openSession(model),
      },
    });
    this.connection = connection;
    const broker = redactedUrl(this.options.url);
    connection.on('connect', () => this.logger.info({ broker }, 'connected to RabbitMQ'));
    connection.on('disconnect', (err: Error) => this.logger.warn({ err, broker }, 'lost the RabbitMQ connection'));
    connection.on('connect-failed', (err: Error) => this.logger.debug({ err, broker }, 'RabbitMQ connection attempt failed'));
    connection.on('reconnect-scheduled', ({ attempt, delay, error }: { attempt: number; delay: number; error: Error }) =>
      this.logger.warn({ attempt, delayMs: delay, err: error, broker }, 'reconnecting to RabbitMQ'),
    );
    connection.on('reconnect-failed', (err: Error) => this.logger.error({ err, broker }, 'gave up reconnecting to RabbitMQ'));
    connection.on('error', (err: Error) => this.logger.warn({ err, broker }, 'RabbitMQ connection error'));
    try {
      // A broker that accepts the connection but never finishes its setup (seen once in CI, a
      // start that logged nothing) fails this attempt instead of holding the start forever.
      await withTimeout(connection.waitForConnect(), this.options.startTimeoutMs ?? START_TIMEOUT_MS, 'connection and set-up');
    } catch (err) {
      await withTimeout(connection.close(), 5_000, 'closing the connection').catch(() => undefined);
      throw new Error(`cannot reach RabbitMQ at ${broker}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Runs on every (re)connection before it counts as up: topology first, then every consumer. */
  private async openSession(model: ChannelModel): Promise<void> {
    model.on('error', (err: Error) => this.logger.debug({ err }, 'RabbitMQ connection error during setup'));
    await this.withChannel(model, async (channel) => {
      await declareBusTopology(channel, this.names);
      for (const queue of this.workQueues.values()) await declareWorkQueue(channel, this.names, queue);
    });
    const session: Session = { model, publisher: undefined as unknown as ConfirmChannel, unconfirmedMandatory: new Map() };
    session.publisher = await this.openPublisher(session);
    this.session = session;
    model.once('close', () => {
      if (this.session === session) this.session = undefined;
    });
    await this.delayForwarder.attach(model);
    for (const consumer of this.consumers) {
      // One queue that cannot be consumed (deleted behind our back) must not keep the rest down.
      await consumer
        .attach(model)
        .catch((err: unknown) => this.logger.error({ err, queue: consumer.queueName }, 'could not resume consumer'));
    }
    for (const waiter of this.sessionWaiters) waiter.resolve(session);
    this.sessionWaiters.clear();
  }

  /**
   * The session's confirm channel. One that dies alone (a channel-level error, such as a publish to
   * an exchange deleted behind our back) is replaced on the same connection: consumers and their
   * handlers under way live on, and publishes waiting on the dead channel's confirms are retried on
   * the new one (publishConfirmed). When the connection itself is going, reconnection rebuilds all.
   */
  private async openPublisher(session: Session): Promise<ConfirmChannel> {
    const publisher = await session.model.createConfirmChannel();
    publisher.on('error', (err: Error) => this.logger.warn({ err }, 'publisher channel error'));
    publisher.on('return', (returned: Message) => {
      const waiting = session.unconfirmedMandatory.get(String(returned.properties.messageId));
      const first = waiting?.find((entry) => !entry.returned);
      if (first) first.returned = true;
    });
    publisher.on('close', () => {
      if (this.closed || session.publisher !== publisher || this.session !== session) return;
      this.openPublisher(session).then(
        (replacement) => {
          session.publisher = replacement;
          this.logger.info('reopened the publisher channel');
        },
        // The connection is closing too: reconnection opens a new session.
        (err: unknown) => this.logger.debug({ err }, 'could not reopen the publisher channel'),
      );
    });
    return publisher;
  }

  private newConsumer(queueName: string, prefetch: number, handleDelivery: DeliveryHandler): AmqpConsumer {
    return new AmqpConsumer(
      {
        queueName,
        prefetch,
        stopGraceMs: this.stopGraceMs,
        onChannelLost: (consumer) => this.reattachLater(consumer),
        onStopped: (consumer) => this.consumers.delete(consumer),
      },
      handleDelivery,
      this.logger,
    );
  }

  private reattachLater(consumer: AmqpConsumer): void {
    const timer = setTimeout(() => {
      const session = this.session;
      if (!session || this.closed) return;
      consumer
        .attach(session.model)
        .catch((err: unknown) => this.logger.warn({ err, queue: consumer.queueName }, 'could not resume consumer'));
    }, CHANNEL_REOPEN_DELAY_MS);
    timer.unref();
  }

  /**
   * Runs the handler on one delivery. A failure to retry is parked in the delay tiers addressed to
   * this queue alone, and the delivery acknowledged; a failure past the budget, or a permanent one,
   * is dead-lettered. When even the parking fails (broker gone), the delivery goes back unsettled.
   */
  private async handleDelivery(queue: QueueDefinition, handler: MessageHandler, delivery: ConsumeMessage): Promise<void> {
    let message: BusMessage;
    try {
      message = decodeMessage(delivery);
    } catch (err) {
      if (err instanceof UndecodableMessageError) throw new DeadLetterDecision('undecodable', err);
      throw err;
    }
    const now = Date.now();
    const clock = retryClock(delivery, now);
    const info = deliveryInfo(
      delivery,
      clock,
      retryDelayMs(clock, queue.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS, now, this.options.retryBackoffMs ?? RETRY_BACKOFF_MS),
    );
    try {
      // The handler runs in the publisher's trace, so its log lines carry the request's trace_id.
      await withIncomingTraceContext(delivery.properties.headers ?? {}, undefined, () => handler(message, info));
    } catch (err) {
      const outcome = failureOutcome(err, info);
      if (outcome.kind === 'dead-letter') throw new DeadLetterDecision(outcome.reason, err);
      await this.parkForRetry(delivery, queue.name, clock, outcome.delayMs);
      this.logger.warn(
        { err, queue: queue.name, messageId: message.id, type: message.type, attempt: info.attempt, retryInMs: outcome.delayMs },
        'handler failed; the message comes back later',
      );
    }
  }

  private async parkForRetry(delivery: ConsumeMessage, queueName: string, clock: RetryClock, delayMs: number): Promise<void> {
    const step = nextDelayStep(delayMs);
    const options = republishOptions(delivery, {
      [RETRIES_HEADER]: clock.retries + 1,
      [FIRST_DELIVERY_HEADER]: clock.firstDeliveredAt,
      [RETRY_QUEUE_HEADER]: queueName,
      [DUE_AT_HEADER]: Date.now() + delayMs,
    });
    const parking = step.kind === 'park' ? this.names.delayTierQueue(step.tier) : this.names.delayReturnQueue;
    await this.publishConfirmed('', parking, delivery.content, options);
  }

  /**
   * Moves a message that left a delay tier: when due, out to its subscribers (or, for a retry,
   * straight back to the one queue it failed in); else on to the next tier.
   */
  private async forwardDelayed(delivery: ConsumeMessage): Promise<void> {
    const message = decodeMessage(delivery);
    const dueAt = Number(delivery.properties.headers?.[DUE_AT_HEADER]);
    const step = nextDelayStep(Number.isFinite(dueAt) ? dueAt - Date.now() : 0);
    if (step.kind === 'park') {
      await this.publishConfirmed('', this.names.delayTierQueue(step.tier), delivery.content, republishOptions(delivery, {}));
      return;
    }
    if (step.waitMs > 0) await untilWallClock(dueAt);
    const options = republishOptions(delivery, {});
    const retryQueue = options.headers?.[RETRY_QUEUE_HEADER] as string | undefined;
    delete options.headers?.[DUE_AT_HEADER];
    delete options.headers?.[RETRY_QUEUE_HEADER];
    if (retryQueue) await this.publishConfirmed('', retryQueue, delivery.content, options);
    else await this.publishConfirmed(this.names.events, message.type, delivery.content, options);
  }

  /**
   * Publishes and waits for the broker's confirm, riding out a connection loss until the outage
   * timeout. A mandatory publish the broker returned (no queue bound) rejects with UnroutableMessageError.
   */
  private async publishConfirmed(exchange: string, routingKey: string, content: Buffer, options: Options.Publish): Promise<void> {
    const deadline = Date.now() + this.outageTimeoutMs;
    for (;;) {
      const session = await this.waitForSession(deadline);
      const watch = options.mandatory ? watchReturn(session, String(options.messageId)) : undefined;
      try {
        await new Promise<void>((resolve, reject) => {
          session.publisher.publish(exchange, routingKey, content, options, (err: unknown) => (err ? reject(err) : resolve()));
        });
        if (watch?.entry.returned) throw new UnroutableMessageError(routingKey);
        return;
      } catch (err) {
        if (err instanceof UnroutableMessageError) throw err;
        if ((err as Error).message === 'message nacked' || this.closed || Date.now() >= deadline) throw err;
        this.logger.warn({ err, exchange, routingKey }, 'publish interrupted by a connection loss; retrying');
        if (this.session === session) await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        watch?.done();
      }
    }
  }

  private waitForSession(deadline = Date.now() + this.outageTimeoutMs): Promise<Session> {
    if (this.closed) return Promise.reject(new Error('message bus closed'));
    if (this.session) return Promise.resolve(this.session);
    return new Promise<Session>((resolve, reject) => {
      const timer = setTimeout(
        () => {
          this.sessionWaiters.delete(waiter);
          reject(new Error(`RabbitMQ unavailable for ${this.outageTimeoutMs} ms at ${redactedUrl(this.options.url)}`));
        },
        Math.max(0, deadline - Date.now()),
      );
      const waiter = {
        resolve: (session: Session) => {
          clearTimeout(timer);
          resolve(session);
        },
        reject: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.sessionWaiters.add(waiter);
    });
  }

  /** A short-lived channel, so that a failed declaration (which closes its channel) harms nothing else. */
  private async withChannel<T>(model: ChannelModel, work: (channel: Channel) => Promise<T>): Promise<T> {
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      return await work(channel);
    } finally {
      await channel.close().catch(() => undefined);
    }
  }
}

/** Registers a mandatory publish of `messageId` to be told whether the broker returned it. */
function watchReturn(session: Session, messageId: string): { entry: { returned: boolean }; done(): void } {
  const entry = { returned: false };
  const waiting = session.unconfirmedMandatory.get(messageId) ?? [];
  waiting.push(entry);
  session.unconfirmedMandatory.set(messageId, waiting);
  return {
    entry,
    done: () => {
      const left = (session.unconfirmedMandatory.get(messageId) ?? []).filter((other) => other !== entry);
      if (left.length > 0) session.unconfirmedMandatory.set(messageId, left);
      else session.unconfirmedMandatory.delete(messageId);
    },
  };
}

function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'amqp://(unparseable url)';
  }
}

/** Waits until `dueAt` by the wall clock: a timer may fire a millisecond early, and a delay is a promise of "not before". */
async function untilWallClock(dueAt: number): Promise<void> {
  while (Date.now() < dueAt) await new Promise((resolve) => setTimeout(resolve, dueAt - Date.now()));
}
