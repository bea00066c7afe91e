import { traceFields } from '@crm/observability';
import { startTelemetry, stopTelemetry } from './start-telemetry';
import {
  activeTraceId,
  bindToActiveContext,
  injectTraceContext,
  isTraceCarrying,
  startRequestTrace,
  withIncomingTraceContext,
} from './trace-carrier';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-00$/;

function injected(): Record<string, string> {
  const headers: Record<string, string> = {};
  injectTraceContext(headers);
  return headers;
}

describe('trace carrier without telemetry started', () => {
  it('carries nothing and runs the work as it is', () => {
    expect(isTraceCarrying()).toBe(false);
    const seen = withIncomingTraceContext({ traceparent: PARENT }, undefined, () => activeTraceId(), true);
    expect(seen).toBeUndefined();
    expect(injected()).toEqual({});
    expect(startRequestTrace({ traceparent: PARENT })).toBeUndefined();
  });
});

describe('trace carrier with trace ids only (no exporter)', () => {
  beforeAll(() => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    expect(startTelemetry('crm-test')).toBe('ids-only');
  });
  afterAll(() => stopTelemetry());

  it('continues the caller’s trace with a span id of its own, across awaits', async () => {
    const outgoing = await withIncomingTraceContext({ traceparent: PARENT }, undefined, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return injected();
    });
    const [, traceId, spanId] = TRACEPARENT.exec(outgoing.traceparent ?? '') ?? [];
    expect(traceId).toBe(TRACE_ID);
    expect(spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(spanId).not.toBe('b7ad6b7169203331');
  });

  it('starts a new trace at an entry that got none, and only there', () => {
    const started = withIncomingTraceContext({}, undefined, () => activeTraceId(), true);
    expect(started).toMatch(/^[0-9a-f]{32}$/);
    expect(started).not.toBe('0'.repeat(32));
    expect(withIncomingTraceContext({}, undefined, () => activeTraceId(), true)).not.toBe(started);
    expect(withIncomingTraceContext({}, undefined, () => activeTraceId())).toBeUndefined();
    expect(withIncomingTraceContext({ traceparent: 'garbage' }, undefined, () => activeTraceId())).toBeUndefined();
  });

  it('gives a request’s trace as plain values without entering it (the gateway carries it by hand)', () => {
    const continued = startRequestTrace({ traceparent: PARENT })!;
    expect(continued).toEqual({ traceId: TRACE_ID, spanId: expect.stringMatching(/^[0-9a-f]{16}$/), traceparent: expect.any(String) });
    expect(continued.spanId).not.toBe('b7ad6b7169203331');
    expect(continued.traceparent).toBe(`00-${TRACE_ID}-${continued.spanId}-00`);
    expect(activeTraceId()).toBeUndefined();
    const started = startRequestTrace({ traceparent: 'garbage' })!;
    expect(started.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(started.traceId).not.toBe(startRequestTrace({})!.traceId);
  });

  it('injects nothing outside a trace', () => {
    expect(injected()).toEqual({});
  });

  it('keeps a callback an emitter calls later in the trace it was bound in', async () => {
    const later = withIncomingTraceContext({ traceparent: PARENT }, undefined, () => bindToActiveContext(() => activeTraceId()));
    expect(await new Promise((resolve) => setImmediate(() => resolve(later())))).toBe(TRACE_ID);
  });

  it('gives log lines of the trace its ids (the logger’s mixin), and others none', () => {
    const inside = withIncomingTraceContext({ traceparent: PARENT }, undefined, () => traceFields());
    expect(inside).toEqual({ trace_id: TRACE_ID, span_id: expect.stringMatching(/^[0-9a-f]{16}$/), trace_flags: '00' });
    expect(traceFields()).toEqual({});
  });
});
