import * as grpc from '@grpc/grpc-js';
import { isDomainError, type Logger } from '@crm/observability';
import { counter, histogram } from '@crm/telemetry';
import { contextFromMetadata, type CallerContext } from './caller-context';
import { toServiceError } from './errors';
import { loadService } from './proto-files';

export interface CallContext extends CallerContext {
  metadata: grpc.Metadata;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
}

/** `host:port` for binding, with an IPv6 host in brackets. */
export function listenAddress(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export type UnaryHandler<Req = any, Res = any> = (request: Req, context: CallContext) => Promise<Res>;

/** Handlers keyed by method name as proto-loader exposes it (the proto's rpc name, e.g. `LogIn`). */
export type ServiceHandlers = Record<string, UnaryHandler>;

type ServingStatus = 'SERVING' | 'NOT_SERVING';

const handled = counter('grpc_server_handled_total', 'gRPC calls completed, by method and status code.', ['service', 'method', 'code']);
const handlingSeconds = histogram(
  'grpc_server_handling_seconds',
  'gRPC call latency, by method.',
  ['service', 'method'],
  [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
);

export interface GrpcServerOptions {
  logger: Logger;
  /** Bigger than the default 4 MiB for import batches. */
  maxMessageBytes?: number;
}

/**
 * A gRPC server that turns async handlers into grpc-js callbacks, reads the caller context from
 * metadata, maps domain errors to status codes (logging unexpected ones in full, answering a bare
 * INTERNAL), and serves the standard health checking protocol for Kubernetes probes.
 */
export class GrpcServer {
  private readonly server: grpc.Server;
  private readonly logger: Logger;
  private readonly health = new Map<string, ServingStatus>([['', 'NOT_SERVING']]);
  private port = 0;

  constructor(options: GrpcServerOptions) {
    this.logger = options.logger;
    const max = options.maxMessageBytes ?? 32 * 1024 * 1024;
    this.server = new grpc.Server({ 'grpc.max_receive_message_length': max, 'grpc.max_send_message_length': max });
    const Health = loadService('grpc/health/v1/health.proto', 'grpc.health.v1.Health');
    this.server.addService(Health.service, {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const status = this.health.get(call.request.service);
        if (!status) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        else callback(null, { status });
      },
      Watch: (call: grpc.ServerWritableStream<{ service: string }, unknown>) => {
        call.write({ status: this.health.get(call.request.service) ?? 'SERVICE_UNKNOWN' });
        call.end();
      },
    });
  }

  /** Registers a service from `proto/`, e.g. ('auth/v1/auth.proto', 'auth.v1.AuthService', handlers). */
  addService(protoPath: string, fullName: string, handlers: ServiceHandlers): this {
    const service = loadService(protoPath, fullName).service;
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [methodName, method] of Object.entries(service)) {
      if (method.requestStream || method.responseStream) continue;
      const handler = handlers[methodName] ?? handlers[method.originalName ?? ''];
      if (!handler) continue; // grpc-js answers UNIMPLEMENTED for methods without an implementation
      implementation[methodName] = this.wrap(fullName, methodName, handler);
    }
    this.server.addService(service, implementation);
    this.health.set(fullName, 'NOT_SERVING');
    return this;
  }

  private wrap(serviceName: string, methodName: string, handler: UnaryHandler): grpc.handleUnaryCall<unknown, unknown> {
    return (call, callback) => {
      const controller = new AbortController();
      call.on('cancelled', () => controller.abort());
      const context: CallContext = { ...contextFromMetadata(call.metadata), metadata: call.metadata, signal: controller.signal };
      const stopTimer = handlingSeconds.startTimer({ service: serviceName, method: methodName });
      handler(call.request, context).then(
        (response) => {
          stopTimer();
          handled.inc({ service: serviceName, method: methodName, code: 'OK' });
          callback(null, response);
        },
        (error: unknown) => {
          stopTimer();
          const serviceError = toServiceError(error);
          handled.inc({
            service: serviceName,
            method: methodName,
            code: grpc.status[serviceError.code ?? grpc.status.UNKNOWN] ?? 'UNKNOWN',
          });
          if (!isDomainError(error) || error.kind === 'internal') {
            this.logger.error({ err: error, rpc: `${serviceName}/${methodName}`, requestId: context.requestId }, 'rpc failed');
          }
          callback(serviceError as grpc.ServiceError);
        },
      );
    };
  }

  /** Binds (port 0 picks a free one) and returns the port. */
  async listen(address: string): Promise<number> {
    this.port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port)));
    });
    return this.port;
  }

  /** Marks every service (and the server as a whole) serving or not, for readiness. */
  setServing(serving: boolean): void {
    for (const name of this.health.keys()) this.health.set(name, serving ? 'SERVING' : 'NOT_SERVING');
  }

  /** Stops taking calls, lets calls under way finish for up to `graceMs`, then cuts the rest. */
  async shutdown(graceMs = 10_000): Promise<void> {
    this.setServing(false);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, graceMs);
      timer.unref();
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
