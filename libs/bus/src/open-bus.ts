import type { Logger } from '@crm/observability';
import { AmqpBus } from './amqp/amqp-bus';
import { InProcessBus } from './in-process/in-process-bus';
import type { BusLocation, MessageBus } from './port';

export interface BusOptions {
  /** How long stopping a consumer waits for handlers under way before handing their messages back. */
  stopGraceMs?: number;
  /** AMQP: how long publish(), schedule() and consume() wait out a broker outage before rejecting. */
  outageTimeoutMs?: number;
  /** AMQP: connection retries at start before giving up. */
  initialConnectRetries?: number;
}

/** RabbitMQ when `AMQP_URL` is set, the in-process bus otherwise. */
export function busLocationFromEnv(amqpUrl: string | undefined = process.env.AMQP_URL): BusLocation {
  return amqpUrl ? { kind: 'amqp', url: amqpUrl } : { kind: 'in-process' };
}

export async function openBus(location: BusLocation, logger: Logger, options: BusOptions = {}): Promise<MessageBus> {
  switch (location.kind) {
    case 'amqp':
      return AmqpBus.open({ url: location.url, exchange: location.exchange, ...options }, logger);
    case 'in-process':
      return new InProcessBus(logger, options);
  }
}
