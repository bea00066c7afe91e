/**
 * The message bus in memory, for single-process runs and tests: the same routing, retry,
 * dead-lettering and delay semantics as RabbitMQ, without durability across restarts.
 */
import Denque from 'denque';
import { CONSUMER_DRAIN_MS, type Logger } from '@crm/observability';
import {
  MAX_MESSAGE_BYTES,
  MessageTooLargeError,
  UnroutableMessageError,
  type BusMessage,
  type Consumer,
  type DeliveryInfo,
  type MessageBus,
  type MessageHandler,
  type PublishOptions,
  type QueueDefinition,
} from '../port';
import { DEFAULT_RETRY_BUDGET_MS, failureOutcome, RETRY_BACKOFF_MS, retryDelayMs } from '../retry-policy';
import { topicMatches } from './topic-pattern';

const DEFAULT_MAX_DELIVERIES = 5;
const DEFAULT_PREFETCH = 10;

export interface InProcessBusOptions {
  /** How long stopping waits for handlers under way before their messages go back. Default CONSUMER_DRAIN_MS (15 s), inside the process grace. */
  stopGraceMs?: number;
  /** Waits between deliveries of a failing message. Default RETRY_BACKOFF_MS; tests shorten it. */
  retryBackoffMs?: readonly number[];
}

interface Envelope {
  /** The message as JSON; each delivery parses its own copy, as a trip through a broker would give. */
  json: string;
  /** The message's id, for logs, without parsing it. */
  id: string;
  /** Deliveries so far. */
  deliveries: number;
  /** Deliveries after a failure so far. */
  retries: number;
  firstDeliveredAt?: number;
  /** What the current delivery was told. */
  info?: DeliveryInfo;
}

type Outcome = { kind: 'acked' } | { kind: 'returned' } | { kind: 'failed'; error: unknown };

interface QueueState {
  definition: QueueDefinition;
  /** Oldest first. A deque: a backlog of thousands (a batch's events) is taken from the front in O(1), where Array#shift copies it. */
  ready: Denque<Envelope>;
  consumers: InProcessConsumer[];
  /** Round-robin position among the queue's consumers. */
  nextConsumer: number;
}

export class InProcessBus implements MessageBus {
  private readonly queues = new Map<string, QueueState>();
  /** Message type → the queues it routes to; as many entries as the system has event types. */
  private readonly routing = new Map<string, QueueState[]>();
  private readonly deadLetters = new Map<string, BusMessage[]>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly stopGraceMs: number;
  private readonly retryBackoffMs: readonly number[];
  private closed = false;

  constructor(
    private readonly logger: Logger,
    options: InProcessBusOptions = {},
  ) {
    this.stopGraceMs = options.stopGraceMs ?? CONSUMER_DRAIN_MS;
    this.retryBackoffMs = options.retryBackoffMs ?? RETRY_BACKOFF_MS;
  }

  async publish(message: BusMessage, options: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    // Like a RabbitMQ queue, a queue here exists from its first consume() on, consumers or not.
    const queues = this.queuesFor(message.type);
    if (options.mandatory && queues.length === 0) throw new UnroutableMessageError(message.type);
    // Serialised once (a batch's event can be hundreds of kB) and parsed at each delivery, in the
    // delivery's own turn of the event loop: parsing a copy per queue here put every copy's parse
    // into the publisher's one turn, a long stretch no other request of the process could enter.
    let json: string | undefined;
    for (const queue of queues) {
      json ??= sizedJson(message);
      queue.ready.push({ json, id: message.id, deliveries: 0, retries: 0 });
      this.dispatch(queue);
    }
  }

  /** The queues a message type routes to, matched once per type (bindings change only in consume(), which forgets them). */
  private queuesFor(type: string): QueueState[] {
    let queues = this.routing.get(type);
    if (!queues) {
      queues = [...this.queues.values()].filter((queue) => routes(queue, type));
      this.routing.set(type, queues);
    }
    return queues;
  }

  async schedule(message: BusMessage, delayMs: number): Promise<void> {
    this.assertOpen();
    this.runAt(Date.now() + delayMs, () => void this.publish(message));
  }

  /** Runs `task` no earlier than `dueAt`, unless the bus closes first. */
  private runAt(dueAt: number, task: () => void): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (this.closed) return;
        // Timers may fire a millisecond early by the wall clock; a delay is a promise of "not before".
        if (Date.now() < dueAt) this.runAt(dueAt, task);
        else task();
      },
      Math.max(0, dueAt - Date.now()),
    );
    this.timers.add(timer);
  }

  async consume(definition: QueueDefinition, handler: MessageHandler): Promise<Consumer> {
    this.assertOpen();
    const queue = this.queues.get(definition.name) ?? { definition, ready: new Denque<Envelope>(), consumers: [], nextConsumer: 0 };
    queue.definition = definition;
    this.queues.set(definition.name, queue);
    this.routing.clear();
    const consumer = new InProcessConsumer(definition.prefetch ?? DEFAULT_PREFETCH, this.stopGraceMs, handler, {
      dispatch: () => this.dispatch(queue),
      settle: (envelope, outcome) => this.settle(queue, envelope, outcome),
      detach: (stopped) => {
        queue.consumers = queue.consumers.filter((c) => c !== stopped);
      },
    });
    queue.consumers.push(consumer);
    this.dispatch(queue);
    return consumer;
  }

  async depth(queueName: string): Promise<number | undefined> {
    const queue = this.queues.get(queueName);
    if (queue) return queue.ready.length;
    const dead = this.deadLetters.get(queueName);
    return dead ? dead.length : undefined;
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all([...this.queues.values()].flatMap((queue) => queue.consumers.map((consumer) => consumer.stop())));
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('message bus closed');
  }

  /** Hands ready messages to consumers with free capacity, round-robin, oldest first. */
  private dispatch(queue: QueueState): void {
    while (queue.ready.length > 0) {
      const consumer = this.nextFreeConsumer(queue);
      if (!consumer) return;
      const envelope = queue.ready.shift()!;
      envelope.deliveries += 1;
      const now = Date.now();
      envelope.firstDeliveredAt ??= now;
      const clock = { firstDeliveredAt: envelope.firstDeliveredAt, retries: envelope.retries };
      const budgetMs = queue.definition.retryBudgetMs ?? DEFAULT_RETRY_BUDGET_MS;
      envelope.info = {
        attempt: envelope.deliveries,
        redelivered: envelope.deliveries > 1,
        retryInMs: retryDelayMs(clock, budgetMs, now, this.retryBackoffMs),
      };
      consumer.deliver(envelope, envelope.info);
    }
  }

  private nextFreeConsumer(queue: QueueState): InProcessConsumer | undefined {
    for (let i = 0; i < queue.consumers.length; i++) {
      const index = (queue.nextConsumer + i) % queue.consumers.length;
      const consumer = queue.consumers[index];
      if (consumer.hasCapacity()) {
        queue.nextConsumer = index + 1;
        return consumer;
      }
    }
    return undefined;
  }

  private settle(queue: QueueState, envelope: Envelope, outcome: Outcome): void {
    if (outcome.kind === 'acked') return;
    if (outcome.kind === 'failed') {
      const next = failureOutcome(outcome.error, envelope.info!);
      if (next.kind === 'dead-letter') return this.deadLetter(queue, envelope, next.reason);
      this.logger.warn(
        { err: outcome.error, queue: queue.definition.name, messageId: envelope.id, retryInMs: next.delayMs },
        'handler failed; the message comes back later',
      );
      envelope.retries += 1;
      this.requeueLater(queue, envelope, next.delayMs);
      return;
    }
    const maxDeliveries = Math.max(1, queue.definition.maxDeliveries ?? DEFAULT_MAX_DELIVERIES);
    if (envelope.deliveries >= maxDeliveries) return this.deadLetter(queue, envelope, 'returned too often');
    queue.ready.push(envelope);
    this.dispatch(queue);
  }

  private deadLetter(queue: QueueState, envelope: Envelope, reason: string): void {
    const deadName = `${queue.definition.name}.dead`;
    this.logger.warn(
      { queue: queue.definition.name, messageId: envelope.id, deliveries: envelope.deliveries, reason },
      'message dead-lettered',
    );
    this.deadLetters.set(deadName, [...(this.deadLetters.get(deadName) ?? []), JSON.parse(envelope.json) as BusMessage]);
  }

  /** A retry goes back to the one queue it failed in, not to every subscriber. */
  private requeueLater(queue: QueueState, envelope: Envelope, delayMs: number): void {
    this.runAt(Date.now() + delayMs, () => {
      queue.ready.push(envelope);
      this.dispatch(queue);
    });
  }
}

function routes(queue: QueueState, type: string): boolean {
  return queue.definition.bindings.some((pattern) => topicMatches(pattern, type));
}

interface ConsumerHooks {
  dispatch(): void;
  settle(envelope: Envelope, outcome: Outcome): void;
  detach(consumer: InProcessConsumer): void;
}

class InProcessConsumer implements Consumer {
  private readonly underWay = new Map<Envelope, Promise<void>>();
  private stopping = false;

  constructor(
    private readonly prefetch: number,
    private readonly stopGraceMs: number,
    private readonly handler: MessageHandler,
    private readonly hooks: ConsumerHooks,
  ) {}

  hasCapacity(): boolean {
    return !this.stopping && this.underWay.size < this.prefetch;
  }

  deliver(envelope: Envelope, info: DeliveryInfo): void {
    // setImmediate: a handler never runs inside the publish() that routed its message.
    const handling = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.handler(JSON.parse(envelope.json) as BusMessage, info))
      .then(
        () => this.finish(envelope, { kind: 'acked' }),
        (error: unknown) => this.finish(envelope, { kind: 'failed', error }),
      );
    this.underWay.set(envelope, handling);
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.hooks.detach(this);
    if (this.underWay.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.stopGraceMs);
      });
      await Promise.race([Promise.allSettled([...this.underWay.values()]), graceOver]);
      clearTimeout(timer);
    }
    // Like a closed channel: whatever is still unacknowledged goes back to the queue.
    const unfinished = [...this.underWay.keys()];
    this.underWay.clear();
    for (const envelope of unfinished) this.hooks.settle(envelope, { kind: 'returned' });
  }

  /** An outcome arriving after stop() handed the message back is ignored, as an ack on a closed channel would be. */
  private finish(envelope: Envelope, outcome: Outcome): void {
    if (!this.underWay.delete(envelope)) return;
    this.hooks.settle(envelope, outcome);
    this.hooks.dispatch();
  }
}

/** The message as JSON, refused past the size a broker takes, as the AMQP bus refuses it. */
function sizedJson(message: BusMessage): string {
  const json = JSON.stringify(message);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_MESSAGE_BYTES) throw new MessageTooLargeError(message.type, bytes);
  return json;
}
