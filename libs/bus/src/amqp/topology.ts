/**
 * Names and declarations of everything the bus needs on the broker. Declarations are idempotent,
 * so they run again after every reconnect.
 */
import type { Channel } from 'amqplib';
import type { QueueDefinition } from '../port';
import { DELAY_TIERS, type DelayTier } from './delay-tiers';

export const DEFAULT_EXCHANGE = 'crm.events';
export const DEFAULT_MAX_DELIVERIES = 5;
export const DEFAULT_PREFETCH = 10;

export interface TopologyNames {
  /** The durable topic exchange every event is published to. */
  events: string;
  /** Direct exchange routing dead letters to `<queue>.dead` by queue name. */
  dead: string;
  /** Fanout exchange the delay tiers dead-letter into. */
  delayReturn: string;
  /** Queue the bus itself consumes to move delayed messages along. */
  delayReturnQueue: string;
  delayTierQueue(tier: DelayTier): string;
  /** Extra arguments on every queue: `x-expires` for throwaway topologies (test runs), none otherwise. */
  queueArguments: Record<string, number>;
}

/** `crm.events` gives `crm.dead`, `crm.delay.return`, `crm.delay.1s`, ... */
export function topologyNames(exchange: string = DEFAULT_EXCHANGE, queueExpiresMs?: number): TopologyNames {
  const prefix = exchange.endsWith('.events') ? exchange.slice(0, -'.events'.length) : exchange;
  return {
    events: exchange,
    dead: `${prefix}.dead`,
    delayReturn: `${prefix}.delay.return`,
    delayReturnQueue: `${prefix}.delay.return`,
    delayTierQueue: (tier) => `${prefix}.delay.${tier.label}`,
    queueArguments: queueExpiresMs ? { 'x-expires': queueExpiresMs } : {},
  };
}

export function deadQueueName(queueName: string): string {
  return `${queueName}.dead`;
}

export async function declareBusTopology(channel: Channel, names: TopologyNames): Promise<void> {
  await channel.assertExchange(names.events, 'topic', { durable: true });
  await channel.assertExchange(names.dead, 'direct', { durable: true });
  await channel.assertExchange(names.delayReturn, 'fanout', { durable: true });
  await channel.assertQueue(names.delayReturnQueue, { durable: true, arguments: { 'x-queue-type': 'quorum', ...names.queueArguments } });
  await channel.bindQueue(names.delayReturnQueue, names.delayReturn, '');
  // Classic queues: quorum queues expire messages by TTL only from RabbitMQ 3.10 on, while classic
  // queues do it on every version we might meet, cheaply and on time.
  for (const tier of DELAY_TIERS) {
    await channel.assertQueue(names.delayTierQueue(tier), {
      durable: true,
      arguments: {
        'x-queue-type': 'classic',
        'x-message-ttl': tier.ttlMs,
        'x-dead-letter-exchange': names.delayReturn,
        ...names.queueArguments,
      },
    });
  }
}

export async function declareWorkQueue(channel: Channel, names: TopologyNames, queue: QueueDefinition): Promise<void> {
  const maxDeliveries = Math.max(1, queue.maxDeliveries ?? DEFAULT_MAX_DELIVERIES);
  const deadQueue = deadQueueName(queue.name);
  await channel.assertQueue(deadQueue, { durable: true, arguments: { 'x-queue-type': 'quorum', ...names.queueArguments } });
  await channel.bindQueue(deadQueue, names.dead, queue.name);
  await channel.assertQueue(queue.name, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      // The limit counts returns, so N deliveries allow N - 1 of them.
      'x-delivery-limit': maxDeliveries - 1,
      'x-dead-letter-exchange': names.dead,
      'x-dead-letter-routing-key': queue.name,
      // At-least-once dead-lettering (RabbitMQ 3.10+) needs reject-publish overflow.
      'x-dead-letter-strategy': 'at-least-once',
      'x-overflow': 'reject-publish',
      ...names.queueArguments,
    },
  });
  for (const pattern of queue.bindings) {
    await channel.bindQueue(queue.name, names.events, pattern);
  }
}

/** Removes a bus's exchanges and delay queues; for tests that create throwaway topologies. */
export async function deleteBusTopology(channel: Channel, names: TopologyNames, queueNames: string[]): Promise<void> {
  for (const queueName of queueNames) {
    await channel.deleteQueue(queueName);
    await channel.deleteQueue(deadQueueName(queueName));
  }
  for (const tier of DELAY_TIERS) await channel.deleteQueue(names.delayTierQueue(tier));
  await channel.deleteQueue(names.delayReturnQueue);
  await channel.deleteExchange(names.delayReturn);
  await channel.deleteExchange(names.dead);
  await channel.deleteExchange(names.events);
}
