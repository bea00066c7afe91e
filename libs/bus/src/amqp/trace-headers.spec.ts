import { randomUUID } from 'node:crypto';
import { connect } from 'amqplib';
import { createLogger } from '@crm/observability';
import { activeTraceId, startTelemetry, stopTelemetry, withIncomingTraceContext } from '@crm/telemetry';
import { newMessage } from '../new-message';
import { AmqpBus } from './amqp-bus';
import { encodeMessage } from './message-codec';
import { deleteBusTopology, topologyNames } from './topology';

jest.setTimeout(60_000);

const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const RUN = randomUUID().slice(0, 8);
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

async function eventually(condition: () => boolean, what: string): Promise<void> {
  const giveUpAt = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('RabbitMQ carries the trace id from publisher to consumer (ids only, no exporter)', () => {
  const exchange = `crm-test-${RUN}-trace.events`;
  const queue = `test-${RUN}.trace`;
  let bus: AmqpBus;

  beforeAll(async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    startTelemetry('crm-test');
    bus = await AmqpBus.open({ url: AMQP_URL, exchange }, createLogger('trace-test', { level: 'silent' }));
  });

  afterAll(async () => {
    await bus?.close();
    const connection = await connect(AMQP_URL);
    try {
      await deleteBusTopology(await connection.createChannel(), topologyNames(exchange), [queue]);
    } finally {
      await connection.close();
    }
    await stopTelemetry();
  });

  it('writes the active trace into the AMQP headers, beside the message’s own, and nothing outside a trace', () => {
    const message = newMessage('test.traced.v1', {}, { correlationId: 'c', headers: { other: 'kept' } });
    const inside = withIncomingTraceContext({ traceparent: PARENT }, undefined, () => encodeMessage(message));
    expect(inside.options.headers).toEqual({ other: 'kept', traceparent: expect.stringMatching(new RegExp(`^00-${TRACE_ID}-`)) });
    expect(encodeMessage(message).options.headers).toEqual({ other: 'kept' });
    expect(JSON.parse(inside.content.toString())).toEqual(message);
  });

  it('runs the consumer’s handler in the publisher’s trace', async () => {
    const seen: Array<string | undefined> = [];
    const consumer = await bus.consume({ name: queue, bindings: [`test-${RUN}.traced`] }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.push(activeTraceId());
    });
    await withIncomingTraceContext({ traceparent: PARENT }, undefined, () =>
      bus.publish(newMessage(`test-${RUN}.traced`, {}, { correlationId: 'c' })),
    );
    await bus.publish(newMessage(`test-${RUN}.traced`, {}, { correlationId: 'c' }));
    await eventually(() => seen.length === 2, 'both messages');
    await consumer.stop();
    expect(seen).toEqual([TRACE_ID, undefined]);
  });
});
