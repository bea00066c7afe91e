import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

// Required lazily so that OTEL_SDK_DISABLED=true (and the unit tests) load none of it.
/* eslint-disable @typescript-eslint/no-require-imports */

let sdk: NodeSDK | undefined;

export interface TelemetryOptions {
  /** Export spans here instead of OTLP (tests use an in-memory exporter). */
  exporter?: SpanExporter;
}

/**
 * The instrumentations every process loads. Exporting: HTTP/Express, gRPC, RabbitMQ, Redis, MongoDB,
 * and trace ids in pino logs. Ids only: just what carries the ids between processes (HTTP, gRPC,
 * RabbitMQ) and writes them into logs; Express's span per middleware and the store and Redis spans
 * would cost every request without anybody seeing them.
 */
export function instrumentations(mode: 'exporting' | 'ids-only' = 'exporting') {
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { GrpcInstrumentation } = require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  const { AmqplibInstrumentation } =
    require('@opentelemetry/instrumentation-amqplib') as typeof import('@opentelemetry/instrumentation-amqplib');
  const { PinoInstrumentation } = require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');
  const carriers = [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
    }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new AmqplibInstrumentation(),
    new PinoInstrumentation(mode === 'ids-only' ? { disableLogSending: true } : {}),
  ];
  if (mode === 'ids-only') return carriers;
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { MongooseInstrumentation } =
    require('@opentelemetry/instrumentation-mongoose') as typeof import('@opentelemetry/instrumentation-mongoose');
  return [...carriers, new ExpressInstrumentation(), new IORedisInstrumentation(), new MongooseInstrumentation()];
}

/**
 * Starts the OpenTelemetry Node SDK with the instrumentations, before the app loads. With an OTLP
 * endpoint (OTEL_EXPORTER_OTLP_ENDPOINT) or a given exporter, spans are recorded and exported.
 * Without one, spans are not recorded (AlwaysOff sampler, nothing exported) but trace ids are still
 * made and carried over HTTP, gRPC and RabbitMQ, so every log line of a request, in every process,
 * shares a trace_id. OTEL_SDK_DISABLED=true turns all of it off. The SDK reads the other OTEL_* variables.
 */
export function startTelemetry(serviceName: string, options: TelemetryOptions = {}): 'exporting' | 'ids-only' | false {
  if (sdk || process.env.OTEL_SDK_DISABLED === 'true') return false;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  const exporting = Boolean(process.env.OTEL_EXPORTER_OTLP_ENDPOINT || options.exporter);
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { AlwaysOffSampler, NoopSpanProcessor, SimpleSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  if (exporting) {
    sdk = new NodeSDK({
      instrumentations: instrumentations(),
      ...(options.exporter ? { spanProcessors: [new SimpleSpanProcessor(options.exporter)] } : {}),
    });
  } else {
    // Nothing may leave the process: no log or metric exporters from the environment's defaults either.
    process.env.OTEL_LOGS_EXPORTER ??= 'none';
    process.env.OTEL_METRICS_EXPORTER ??= 'none';
    sdk = new NodeSDK({
      instrumentations: instrumentations('ids-only'),
      sampler: new AlwaysOffSampler(),
      // A processor that does nothing: the SDK registers its tracer provider (the ids) only when it has one.
      spanProcessors: [new NoopSpanProcessor()],
    });
  }
  sdk.start();
  return exporting ? 'exporting' : 'ids-only';
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
