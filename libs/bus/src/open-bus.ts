import { openWhenReachable, urlHost, type DependencyWaitOptions, type Logger } from '@crm/observability';
import { AmqpBus } from './amqp/amqp-bus';
import { withMetrics } from './bus-metrics';
import { InProcessBus } from './in-process/in-process-bus';
import type { BusLocation, MessageBus } from './port';

export interface BusOptions {
  /** How long stopping a consumer waits for handlers under way before handing their messages back. */
  stopGraceMs?: number;
  /** AMQP: how long publish(), schedule() and consume() wait out a broker outage before rejecting. */
  outageTimeoutMs?: number;
  /** AMQP: connection retries at start before giving up. */
  initialConnectRetries?: number;
  /** Waits between deliveries of a failing message (default RETRY_BACKOFF_MS); tests shorten them. */
  retryBackoffMs?: readonly number[];
}

/**
 * RabbitMQ when `AMQP_URL` is set, the in-process bus otherwise. `CRM_BUS_EXCHANGE` and
 * `CRM_QUEUE_PREFIX` name the exchange and prefix the queues, and `CRM_QUEUE_EXPIRES_MS` lets the
 * queues delete themselves once unused (the local-cluster runner sets all three per run, so test
 * runs never pile up quorum queues on a shared broker).
 */
export function busLocationFromEnv(amqpUrl: string | undefined = process.env.AMQP_URL, env: NodeJS.ProcessEnv = process.env): BusLocation {
  if (!amqpUrl) return { kind: 'in-process' };
  const expires = Number(env.CRM_QUEUE_EXPIRES_MS);
  return {
    kind: 'amqp',
    url: amqpUrl,
    exchange: env.CRM_BUS_EXCHANGE || undefined,
    queuePrefix: env.CRM_QUEUE_PREFIX || undefined,
    queueExpiresMs: Number.isInteger(expires) && expires > 0 ? expires : undefined,
  };
}

/** The same bus with `prefix` before every work queue's name. */
function withQueuePrefix(bus: MessageBus, prefix: string): MessageBus {
  return {
    publish: (message, options) => bus.publish(message, options),
    schedule: (message, delayMs) => bus.schedule(message, delayMs),
    consume: (queue, handler) => bus.consume({ ...queue, name: `${prefix}${queue.name}` }, handler),
    depth: (queueName) => bus.depth(`${prefix}${queueName}`),
    ping: () => bus.ping(),
    close: () => bus.close(),
  };
}

export async function openBus(location: BusLocation, logger: Logger, options: BusOptions = {}): Promise<MessageBus> {
  switch (location.kind) {
    case 'amqp': {
      const bus = await AmqpBus.open(
        { url: location.url, exchange: location.exchange, queueExpiresMs: location.queueExpiresMs, ...options },
        logger,
      );
      return withMetrics(location.queuePrefix ? withQueuePrefix(bus, location.queuePrefix) : bus);
    }
    case 'in-process':
      return withMetrics(new InProcessBus(logger, options));
  }
}

/**
 * openBus, waiting for a RabbitMQ that does not answer yet (capped exponential backoff, each
 * attempt logged) instead of failing: a process started before its broker comes up with it.
 */
export async function openBusWhenReachable(
  location: BusLocation,
  logger: Logger,
  options: BusOptions = {},
  wait: DependencyWaitOptions = {},
): Promise<MessageBus> {
  if (location.kind !== 'amqp') return openBus(location, logger, options);
  return openWhenReachable({ name: 'RabbitMQ', where: urlHost(location.url) }, () => openBus(location, logger, options), logger, wait);
}
