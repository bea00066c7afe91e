import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { GrpcInstrumentation } from '@opentelemetry/instrumentation-grpc';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongooseInstrumentation } from '@opentelemetry/instrumentation-mongoose';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';

let sdk: NodeSDK | undefined;

export interface TelemetryOptions {
  /** Export spans here instead of OTLP (tests use an in-memory exporter). */
  exporter?: SpanExporter;
}

/** The instrumentations every process loads: HTTP/Express, gRPC, RabbitMQ, Redis, MongoDB, and trace ids in pino logs. */
export function instrumentations() {
  return [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics' }),
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
