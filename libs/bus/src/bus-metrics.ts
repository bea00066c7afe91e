import { counter, gauge, histogram } from '@crm/telemetry';
import type { MessageBus } from './port';
import { failureOutcome } from './retry-policy';

const handled = counter('bus_messages_handled_total', 'Messages handled by consumers, by queue and outcome (ok, error).', [
  'queue',
  'outcome',
]);
const handlingSeconds = histogram('bus_message_handling_seconds', 'Time a consumer spent on a message, by queue.', ['queue']);
const ageSeconds = histogram(
  'bus_message_age_seconds',
  'Consumer lag: how old a message was (from its occurredAt) when a consumer got it, by queue.',
  ['queue'],
  [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800],
);
const retried = counter('bus_message_retries_total', 'Failed deliveries that will be delivered again after a delay, by queue.', ['queue']);
const deadLettered = counter(
  'bus_messages_dead_lettered_total',
  'Messages sent to their dead-letter queue after a failed delivery, by queue and reason (permanent, budget_spent).',
  ['queue', 'reason'],
);

/**
 * The same bus with consumer metrics: outcomes, handling time, message age on arrival, and the
 * depth of every queue this process consumes (read when Prometheus scrapes).
 */
export function withMetrics(bus: MessageBus): MessageBus {
  const consumed = new Set<string>();
  gauge('bus_queue_depth', 'Messages waiting in a queue this process consumes.', ['queue'], async function collect() {
    for (const queue of consumed) {
      const depth = await bus.depth(queue).catch(() => undefined);
      if (depth !== undefined) this.set({ queue }, depth);
    }
  });
  // Messages that ran out of deliveries wait in `<queue>.dead` for an operator: any is worth an alert.
  gauge(
    'bus_dead_letter_depth',
    'Messages in the dead-letter queue of a queue this process consumes.',
    ['queue'],
    async function collect() {
      for (const queue of consumed) {
        const depth = await bus.depth(`${queue}.dead`).catch(() => undefined);
        if (depth !== undefined) this.set({ queue }, depth);
      }
    },
  );
  return {
    publish: (message, options) => bus.publish(message, options),
    schedule: (message, delayMs) => bus.schedule(message, delayMs),
    consume: (queue, handler) => {
      consumed.add(queue.name);
      return bus.consume(queue, async (message, info) => {
        const occurred = Date.parse(message.occurredAt);
        if (Number.isFinite(occurred)) ageSeconds.observe({ queue: queue.name }, Math.max(0, Date.now() - occurred) / 1000);
        const stop = handlingSeconds.startTimer({ queue: queue.name });
        try {
          await handler(message, info);
          handled.inc({ queue: queue.name, outcome: 'ok' });
        } catch (error) {
          handled.inc({ queue: queue.name, outcome: 'error' });
          // The adapter decides with the same function, so this counts what it does.
          const next = failureOutcome(error, info);
          if (next.kind === 'retry') retried.inc({ queue: queue.name });
          else deadLettered.inc({ queue: queue.name, reason: next.reason });
          throw error;
        } finally {
          stop();
        }
      });
    },
    depth: (queueName) => bus.depth(queueName),
    ping: () => bus.ping(),
    close: () => bus.close(),
    // The AMQP adapter's fault-injection hook for tests, kept reachable through the wrapper.
    ...('severConnection' in bus ? { severConnection: () => (bus as { severConnection(): void }).severConnection() } : {}),
  } as MessageBus;
}
