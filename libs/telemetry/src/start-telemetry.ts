import { context, propagation } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { setTraceCarrying } from './trace-carrier';

// Required lazily so that only an exporting process loads the SDK (and OTEL_SDK_DISABLED=true nothing).
/* eslint-disable @typescript-eslint/no-require-imports */

let sdk: NodeSDK | undefined;
let carryingIds = false;

export interface TelemetryOptions {
  /** Export spans here instead of OTLP (tests use an in-memory exporter). */
  exporter?: SpanExporter;
}

/**
 * The instrumentations loaded when spans are exported: HTTP/Express, gRPC, RabbitMQ, Redis, MongoDB,
 * and pino (log sending; trace ids on log lines come from the logger itself, see libs/observability).
 */
export function instrumentations() {
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { GrpcInstrumentation } = require('@opentelemetry/instrumentation-grpc') as typeof import('@opentelemetry/instrumentation-grpc');
  const { AmqplibInstrumentation } =
    require('@opentelemetry/instrumentation-amqplib') as typeof import('@opentelemetry/instrumentation-amqplib');
  const { PinoInstrumentation } = require('@opentelemetry/instrumentation-pino') as typeof import('@opentelemetry/instrumentation-pino');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { MongooseInstrumentation } =
    require('@opentelemetry/instrumentation-mongoose') as typeof import('@opentelemetry/instrumentation-mongoose');
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
    }),
    new GrpcInstrumentation({ ignoreGrpcMethods: ['Check', 'Watch'] }),
    new AmqplibInstrumentation(),
    new PinoInstrumentation({ disableLogCorrelation: true }),
    new ExpressInstrumentation(),
    new IORedisInstrumentation(),
    new MongooseInstrumentation(),
  ];
}

/**
 * Starts tracing before the app loads. With an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT) or a
 * given exporter: the OpenTelemetry Node SDK with the instrumentations, spans recorded and exported
 * (the SDK reads the other OTEL_* variables). Without one: no SDK and no instrumentation, only a
 * context manager and the W3C propagator, with which trace-carrier.ts carries trace ids over HTTP
 * into the gateway, gRPC and RabbitMQ, so every log line of a request, in every process, shares a
 * trace_id (the SDK's per-request span machinery cost the gateway a fifth of its throughput).
 * OTEL_SDK_DISABLED=true turns all of it off.
 */
export function startTelemetry(serviceName: string, options: TelemetryOptions = {}): 'exporting' | 'ids-only' | false {
  if (sdk || carryingIds || process.env.OTEL_SDK_DISABLED === 'true') return false;
  process.env.OTEL_SERVICE_NAME ??= serviceName;
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !options.exporter) {
    const { AsyncLocalStorageContextManager } =
      require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
    const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    setTraceCarrying(true);
    carryingIds = true;
    return 'ids-only';
  }
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  sdk = new NodeSDK({
    instrumentations: instrumentations(),
    ...(options.exporter ? { spanProcessors: [new SimpleSpanProcessor(options.exporter)] } : {}),
  });
  sdk.start();
  return 'exporting';
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
  if (carryingIds) {
    setTraceCarrying(false);
    context.disable();
    propagation.disable();
    carryingIds = false;
  }
}
