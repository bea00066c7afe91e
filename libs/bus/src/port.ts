/**
 * The message-bus port: RabbitMQ through amqplib in production, an in-process bus by default.
 *
 * Delivery is at least once: a consumer may see a message again after a crash or a broker restart,
 * so every handler is idempotent (keyed on `message.id` or on the work it describes) and the
 * message is acknowledged only after the handler's writes are durable (when it resolves).
 *
 * A handler that throws gets the message again later, after growing delays, until the queue's
 * retry budget is spent; then, or at once for a permanent failure, the message goes to
 * `<queue>.dead` for an operator (`crm dead-letters`). See retry-policy.ts.
 */

/**
 * The largest message body a bus takes: under RabbitMQ 4's default `max_message_size` (16 MiB), since a
 * publish the broker refuses closes the whole connection, every channel of the process with it. A
 * larger message is refused before it is sent (`MessageTooLargeError`); publishers cut their work to fit.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export class MessageTooLargeError extends Error {
  constructor(
    readonly type: string,
    readonly bytes: number,
  ) {
    super(`The ${type} message is ${bytes} bytes; at most ${MAX_MESSAGE_BYTES} can be published.`);
  }
}

export interface BusMessage<P = unknown> {
  /** Unique per message; handlers use it (or the work's own key) to ignore redeliveries. */
  id: string;
  /** Versioned type, `<service>.<event>.v<n>`, e.g. `records.lead_created.v1`. */
  type: string;
  /** Ties together the messages one request or job caused (the gateway's request id, a job uid). */
  correlationId: string;
  /** ISO 8601 UTC. */
  occurredAt: string;
  /** What caused the change, when a service's own write did (the automation rules behind it); never from a client. */
  cause?: string;
  payload: P;
  /** Transport headers such as W3C trace context (`traceparent`). */
  headers?: Record<string, string>;
}

export interface QueueDefinition {
  /** Durable queue name, e.g. `automation.events`. */
  name: string;
  /** Routing-key patterns on the topic exchange (`records.#`, `import.chunk.v1`). */
  bindings: string[];
  /**
   * Deliveries handed back unsettled (a consumer crashed or stopped mid-handler) before the message
   * goes to `<name>.dead`. Default 5. Failed handlers are governed by `retryBudgetMs` instead.
   */
  maxDeliveries?: number;
  /** How long from its first delivery a message whose handler keeps failing is retried. Default 10 min. */
  retryBudgetMs?: number;
  /** Messages handed to this consumer before it has acknowledged them. Default 10. */
  prefetch?: number;
}

export interface DeliveryInfo {
  /** 1 on the first delivery, higher on redelivery when the broker knows. */
  attempt: number;
  redelivered: boolean;
  /** Should this delivery fail, the next comes this much later; null when this is the last (a failure dead-letters it). */
  retryInMs: number | null;
}

export type MessageHandler = (message: BusMessage, info: DeliveryInfo) => Promise<void>;

export interface Consumer {
  /** Stops taking new messages and waits for handlers under way to finish (or hands them back). */
  stop(): Promise<void>;
}

export interface PublishOptions {
  /**
   * The message must reach at least one queue: when no queue is bound to its type (the consumer's
   * service not deployed yet, a queue deleted), publish() rejects with UnroutableMessageError
   * instead of resolving for a message nobody will ever receive. The outbox relay publishes this
   * way, so an event nobody took stays in the outbox until its queues exist.
   */
  mandatory?: boolean;
}

/** A mandatory publish that no queue took (RabbitMQ returned it; in process, no binding matched). */
export class UnroutableMessageError extends Error {
  constructor(readonly messageType: string) {
    super(`no queue is bound to ${messageType}; the message was not delivered`);
    this.name = 'UnroutableMessageError';
  }
}

export interface MessageBus {
  /** Resolves once the broker has confirmed the message (publisher confirms). Routing key = message.type. */
  publish(message: BusMessage, options?: PublishOptions): Promise<void>;
  /**
   * Publishes `message` so that it is delivered no earlier than `delayMs` from now. The one
   * function every delay goes through. RabbitMQ: TTL queues by delay tier with dead-lettering
   * back to the exchange, hopping down the tiers until due.
   */
  schedule(message: BusMessage, delayMs: number): Promise<void>;
  consume(queue: QueueDefinition, handler: MessageHandler): Promise<Consumer>;
  /** Messages waiting in a queue (for metrics and tests); undefined when the adapter cannot tell. */
  depth(queueName: string): Promise<number | undefined>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export type BusLocation =
  | {
      kind: 'amqp';
      url: string;
      /** The topic exchange (default `crm.events`); delay and dead-letter names derive from it. */
      exchange?: string;
      /** Put before every work queue's name, so test runs or deployments sharing a broker never share a queue. */
      queuePrefix?: string;
      /** Queues delete themselves once unused this long: throwaway topologies (test runs) only. */
      queueExpiresMs?: number;
    }
  | { kind: 'in-process' };
