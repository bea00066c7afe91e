import * as grpc from '@grpc/grpc-js';
import { createLogger } from '@crm/observability';
import { activeTraceId, startTelemetry, stopTelemetry, withIncomingTraceContext } from '@crm/telemetry';
import { GrpcClient } from './client';
import type { ImportServiceMethods } from './generated/import.v1';
import { GrpcServer, type CallContext } from './server';
import { metadataGetter, metadataSetter } from './trace-metadata';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('gRPC metadata as a trace carrier', () => {
  it('reads and writes traceparent as plain metadata', () => {
    const metadata = new grpc.Metadata();
    metadataSetter.set(metadata, 'traceparent', PARENT);
    expect(metadataGetter.get(metadata, 'traceparent')).toBe(PARENT);
    expect(metadataGetter.get(metadata, 'tracestate')).toBeUndefined();
    expect(metadataGetter.keys(metadata)).toEqual(['traceparent']);
  });
});

/** An import service whose GetImportJob records what its handler sees, and a client of it. */
async function recordingImportService(
  traceContext: 'active' | 'carried',
  record: (context: CallContext) => void,
): Promise<{ server: GrpcServer; client: GrpcClient<ImportServiceMethods> }> {
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  startTelemetry('crm-test');
  const server = new GrpcServer({ logger: createLogger('trace-test', { level: 'silent' }), tls: null, traceContext }).addService(
    'import/v1/import.proto',
    'import.v1.ImportService',
    {
      GetImportJob: async (_request, context) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        record(context);
        return {};
      },
    },
    {},
  );
  const port = await server.listen('127.0.0.1:0');
  const client = new GrpcClient<ImportServiceMethods>('import/v1/import.proto', 'import.v1.ImportService', `127.0.0.1:${port}`, null);
  return { server, client };
}

describe('GrpcClient and GrpcServer carry the trace id (ids only, no exporter)', () => {
  let server: GrpcServer;
  let client: GrpcClient<ImportServiceMethods>;
  const seen: Array<{ traceId: string | undefined; traceparent: unknown }> = [];

  beforeAll(async () => {
    ({ server, client } = await recordingImportService('active', (context) =>
      seen.push({ traceId: activeTraceId(), traceparent: context.metadata.get('traceparent')[0] }),
    ));
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(0);
    await stopTelemetry();
  });

  it('runs the handler in the caller’s trace', async () => {
    await withIncomingTraceContext({ traceparent: PARENT }, undefined, () => client.call('GetImportJob', { uid: 'j' }));
    expect(seen.pop()).toEqual({ traceId: TRACE_ID, traceparent: expect.stringMatching(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`)) });
  });

  it('sends the trace a caller carries by hand in its caller context (the gateway)', async () => {
    const traceparent = `00-${TRACE_ID}-b7ad6b7169203331-00`;
    await client.call('GetImportJob', { uid: 'j' }, { requestId: 'req-1', traceparent });
    expect(seen.pop()).toEqual({ traceId: TRACE_ID, traceparent });
  });

  it('sends no trace context from outside a trace, and the handler runs in none', async () => {
    await client.call('GetImportJob', { uid: 'j' });
    expect(seen.pop()).toEqual({ traceId: undefined, traceparent: undefined });
  });
});

describe("a GrpcServer with traceContext: 'carried'", () => {
  let server: GrpcServer;
  let client: GrpcClient<ImportServiceMethods>;
  const seen: Array<{ active: string | undefined; trace: unknown; traceparent: string | undefined }> = [];

  beforeAll(async () => {
    ({ server, client } = await recordingImportService('carried', (context) =>
      seen.push({ active: activeTraceId(), trace: context.trace, traceparent: context.traceparent }),
    ));
  });

  afterAll(async () => {
    client.close();
    await server.shutdown(0);
    await stopTelemetry();
  });

  it('hands the caller’s trace to the handler as a span of its own, outside any active context', async () => {
    await client.call('GetImportJob', { uid: 'j' }, { requestId: 'req-1', traceparent: PARENT });
    const [call] = seen.splice(0);
    expect(call).toEqual({
      active: undefined,
      trace: { traceId: TRACE_ID, spanId: expect.stringMatching(/^[0-9a-f]{16}$/), traceparent: expect.any(String) },
      traceparent: expect.stringMatching(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`)),
    });
    // The handler's own span, which a call it makes with its context continues; not the caller's.
    expect(call!.traceparent).not.toBe(PARENT);
    expect((call!.trace as { traceparent: string }).traceparent).toBe(call!.traceparent);
  });

  it('gives a call without a trace none', async () => {
    await client.call('GetImportJob', { uid: 'j' });
    expect(seen.splice(0)).toEqual([{ active: undefined, trace: undefined, traceparent: undefined }]);
  });
});
