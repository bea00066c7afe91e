import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

// The SDK and its instrumentations are loaded only when tracing is on: they cost about 200 ms of
// start-up that a laptop run (nothing exported) should not pay.
/* eslint-disable @typescript-eslint/no-require-imports */

let sdk: NodeSDK | undefined;

export interface TelemetryOptions {
  /** Export spans here instead of OTLP (tests use an in-memory exporter). */
  exporter?: SpanExporter;
}

/** The instrumentations every process loads: HTTP/Express, gRPC, RabbitMQ, Redis, MongoDB, and trace ids in pino logs. */
export function instrumentations() {
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { GrpcInstrumentation } = require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  const { AmqplibInstrumentation } =
    require('@opentelemetry/instrumentation-amqplib') as typeof import('@opentelemetry/instrumentation-amqplib');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { MongooseInstrumentation } =
    require('@opentelemetry/instrumentation-mongoose') as typeof import('@opentelemetry/instrumentation-mongoose');
  const { PinoInstrumentation } = require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
    }),
    new ExpressInstrumentation(),
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new AmqplibInstrumentation(),
    new IORedisInstrumentation(),
    new MongooseInstrumentation(),
    new PinoInstrumentation(),
  ];
}

/**
 * Starts the OpenTelemetry Node SDK with the instrumentations when an OTLP endpoint is configured
 * (OTEL_EXPORTER_OTLP_ENDPOINT) or an exporter is given; otherwise does nothing, so a laptop run
 * exports nothing and pays nothing. The SDK reads the standard OTEL_* variables itself.
 */
export function startTelemetry(serviceName: string, options: TelemetryOptions = {}): boolean {
  if (sdk || (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !options.exporter)) return false;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  sdk = new NodeSDK({
    instrumentations: instrumentations(),
    ...(options.exporter ? { spanProcessors: [new SimpleSpanProcessor(options.exporter)] } : {}),
  });
  sdk.start();
  return true;
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
