import { createLogger } from '@crm/observability';
import { metricsRegistry } from '@crm/telemetry';
import { withMetrics } from './bus-metrics';
import { InProcessBus } from './in-process/in-process-bus';
import { newMessage } from './new-message';
import { PermanentMessageError } from './retry-policy';

async function metricLine(name: string, labels: string): Promise<string | undefined> {
  const text = await metricsRegistry.metrics();
  return text.split('\n').find((line) => line.startsWith(`${name}{${labels}}`));
}

async function deadLetterOf(bus: ReturnType<typeof withMetrics>, queue: string, handler: () => Promise<void>): Promise<void> {
  const consumer = await bus.consume({ name: queue, bindings: [queue], retryBudgetMs: 100 }, handler);
  await bus.publish(newMessage(queue, {}, { correlationId: 'c' }));
  const deadline = Date.now() + 10_000;
  while ((await bus.depth(`${queue}.dead`)) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await consumer.stop();
}

it('exports the depth of a consumed queue and of its dead-letter queue', async () => {
  const bus = withMetrics(new InProcessBus(createLogger('test', { level: 'silent' })));
  try {
    await deadLetterOf(bus, 'metrics.poison', async () => {
      throw new PermanentMessageError('bad message');
    });
    expect(await metricLine('bus_dead_letter_depth', 'queue="metrics.poison"')).toBe('bus_dead_letter_depth{queue="metrics.poison"} 1');
    expect(await metricLine('bus_queue_depth', 'queue="metrics.poison"')).toBe('bus_queue_depth{queue="metrics.poison"} 0');
    expect(await metricLine('bus_messages_dead_lettered_total', 'queue="metrics.poison",reason="permanent"')).toBe(
      'bus_messages_dead_lettered_total{queue="metrics.poison",reason="permanent"} 1',
    );
  } finally {
    await bus.close();
  }
});

it('counts the retries of a failing message and its dead letter once its budget is spent', async () => {
  const bus = withMetrics(new InProcessBus(createLogger('test', { level: 'silent' }), { retryBackoffMs: [10, 20] }));
  try {
    let deliveries = 0;
    await deadLetterOf(bus, 'metrics.flaky', async () => {
      deliveries += 1;
      throw new Error('records is down');
    });
    expect(deliveries).toBeGreaterThan(2);
    expect(await metricLine('bus_message_retries_total', 'queue="metrics.flaky"')).toBe(
      `bus_message_retries_total{queue="metrics.flaky"} ${deliveries - 1}`,
    );
    expect(await metricLine('bus_messages_dead_lettered_total', 'queue="metrics.flaky",reason="budget_spent"')).toBe(
      'bus_messages_dead_lettered_total{queue="metrics.flaky",reason="budget_spent"} 1',
    );
  } finally {
    await bus.close();
  }
});
