import * as grpc from '@grpc/grpc-js';
import { CALL_DRAIN_MS, isDomainError, type Logger } from '@crm/observability';
import { carriedTrace, counter, histogram, traceLogFields, withIncomingTraceContext, type RequestTrace } from '@crm/telemetry';
import { contextFromMetadata, type CallerContext } from './caller-context';
import { decideCall, type ServiceCallers } from './caller-policy';
import { toServiceError } from './errors';
import { peerIdentity, serverCredentials, type InternalTls } from './internal-tls';
import { loadService } from './proto-files';
import { ReadinessWatch, type ReadinessCheck } from './readiness';
import { metadataGetter } from './trace-metadata';

export interface CallContext extends CallerContext {
  metadata: grpc.Metadata;
  /** The internal identity of the caller (its certificate's name); undefined on a plaintext server. */
  peer?: string | undefined;
  /** Aborted when the caller cancels or its deadline passes. */
  signal: AbortSignal;
  /** This call's trace, when the server carries it by hand (`traceContext: 'carried'`); its `traceparent` is set too. */
  trace?: RequestTrace | undefined;
}

/** `host:port` for binding, with an IPv6 host in brackets; a `unix:/path` host is a Unix socket (no port). */
export function listenAddress(host: string, port: number): string {
  if (host.startsWith('unix:')) return host;
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Where the plaintext health-only listener goes (GRPC_HEALTH_PORT on GRPC_HOST); none when the port is unset or the host a Unix socket. */
export function healthListenAddress(config: { GRPC_HOST: string; GRPC_HEALTH_PORT?: number | undefined }): string | undefined {
  if (!config.GRPC_HEALTH_PORT || config.GRPC_HOST.startsWith('unix:')) return undefined;
  return listenAddress(config.GRPC_HOST, config.GRPC_HEALTH_PORT);
}

export type UnaryHandler<Req = any, Res = any> = (request: Req, context: CallContext) => Promise<Res>;

/**
 * A server-streaming method: `send` resolves once the message is taken (the call's buffer has room
 * again), so a handler that awaits it holds at most one message beyond what the transport buffers.
 * The call ends when the returned promise resolves; a rejection ends it with the error's status.
 */
export type StreamHandler<Req = any, Res = any> = (
  request: Req,
  context: CallContext,
  send: (message: Res) => Promise<void>,
) => Promise<void>;

/**
 * Handlers keyed by method name as proto-loader exposes it (the proto's rpc name, e.g. `LogIn`):
 * unary handlers, and stream handlers (their third parameter) for server-streaming methods.
 */
export type ServiceHandlers = Record<string, AnyHandler>;

/** A unary or a stream handler; method syntax, so that a stream handler's required `send` is accepted. */
type AnyHandler = {
  handle(request: any, context: CallContext, send?: (message: any) => Promise<void>): Promise<any>;
}['handle'];

type ServingStatus = 'SERVING' | 'NOT_SERVING';

const handled = counter('grpc_server_handled_total', 'gRPC calls completed, by method and status code.', ['service', 'method', 'code']);
const handlingSeconds = histogram(
  'grpc_server_handling_seconds',
  'gRPC call latency, by method.',
  ['service', 'method'],
  [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
);

/**
 * How long a client connection lives before the server asks the client to reconnect (GOAWAY;
 * grpc-js adds ±10% jitter). A caller balancing over a headless Service then resolves again and
 * connects to replicas added since, so an autoscaled replica fills up within about this long.
 */
export const MAX_CONNECTION_AGE_MS = 30_000;
/** Calls under way on an aged connection may finish for this long: above the longest deadline a caller sets (import's 60 s batch). */
export const MAX_CONNECTION_AGE_GRACE_MS = 70_000;

/** The grpc-js options of a server (`maxConnectionAgeMs` shorter in tests). */
export function serverChannelOptions(
  options: { maxMessageBytes?: number | undefined; maxConnectionAgeMs?: number | undefined } = {},
): grpc.ServerOptions {
  const max = options.maxMessageBytes ?? 32 * 1024 * 1024;
  return {
    'grpc.max_receive_message_length': max,
    'grpc.max_send_message_length': max,
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? MAX_CONNECTION_AGE_MS,
    'grpc.max_connection_age_grace_ms': MAX_CONNECTION_AGE_GRACE_MS,
    // Channelz keeps per-call statistics nobody here reads; off, it costs nothing per call.
    'grpc.enable_channelz': 0,
  };
}

export interface GrpcServerOptions {
  logger: Logger;
  /**
   * This process's internal certificate: clients must then present one of the same CA, and each
   * service's caller table decides what they may do. Null serves plaintext and believes any
   * caller's metadata: for unit specs and an explicit INTERNAL_TLS=off only.
   */
  tls: InternalTls | null;
  /** Bigger than the default 4 MiB for import batches. */
  maxMessageBytes?: number;
  /** Default MAX_CONNECTION_AGE_MS; tests shorten it to see clients move to a new replica. */
  maxConnectionAgeMs?: number;
  /**
   * How a handler gets its caller's trace. 'active' (the default): it runs in it, so its log lines,
   * outgoing calls and outbox writes take it from the active context. 'carried': it runs in no
   * context and finds the trace in `CallContext.trace` (and `traceparent`, which an outgoing call
   * with this context continues), for a service whose handlers neither log nor publish in the
   * caller's trace: on Node 20 entering an async context even once makes every promise of the
   * process pay for async hooks (auth: ~20% of its CPU per call).
   */
  traceContext?: 'active' | 'carried';
}

/**
 * The health service name the kubelet's liveness probe asks for: SERVING whenever the process answers
 * at all, whatever its stores or draining say (readiness is the server's own status, ""). Answered
 * by the event loop, so a hung or frozen process fails it, where a TCP probe would still pass (the
 * kernel completes the handshake for a process that never runs again).
 */
export const LIVENESS_SERVICE = 'liveness';

/**
 * A gRPC server that turns async handlers into grpc-js callbacks, reads the caller context from
 * metadata, maps domain errors to status codes (logging unexpected ones in full, answering a bare
 * INTERNAL), and serves the standard health checking protocol for Kubernetes probes.
 */
export class GrpcServer {
  private readonly server: grpc.Server;
  private readonly logger: Logger;
  private readonly tls: InternalTls | null;
  private readonly carriesTrace: boolean;
  private readonly healthService: { definition: grpc.ServiceDefinition; implementation: grpc.UntypedServiceImplementation };
  private healthServer: grpc.Server | undefined;
  private readonly health = new Map<string, ServingStatus>([
    ['', 'NOT_SERVING'],
    [LIVENESS_SERVICE, 'SERVING'],
  ]);
  private readiness: ReadinessWatch | undefined;
  private port = 0;

  constructor(options: GrpcServerOptions) {
    this.logger = options.logger;
    this.tls = options.tls;
    this.carriesTrace = options.traceContext === 'carried';
    this.server = new grpc.Server(serverChannelOptions(options));
    const Health = loadService('grpc/health/v1/health.proto', 'grpc.health.v1.Health');
    this.healthService = { definition: Health.service, implementation: this.healthImplementation() };
    this.server.addService(this.healthService.definition, this.healthService.implementation);
  }

  private healthImplementation(): grpc.UntypedServiceImplementation {
    return {
      Check: (call: grpc.ServerUnaryCall<{ service: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const status = this.health.get(call.request.service);
        if (!status) callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        else callback(null, { status });
      },
      Watch: (call: grpc.ServerWritableStream<{ service: string }, unknown>) => {
        call.write({ status: this.health.get(call.request.service) ?? 'SERVICE_UNKNOWN' });
        call.end();
      },
    } as grpc.UntypedServiceImplementation;
  }

  /**
   * Registers a service from `proto/`, e.g. ('auth/v1/auth.proto', 'auth.v1.AuthService', handlers,
   * authCallers): with internal TLS, `callers` decides which identities may call which methods.
   */
  addService(protoPath: string, fullName: string, handlers: ServiceHandlers, callers: ServiceCallers): this {
    const service = loadService(protoPath, fullName).service;
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const [methodName, method] of Object.entries(service)) {
      if (method.requestStream) continue;
      const handler = handlers[methodName] ?? handlers[method.originalName ?? ''];
      if (!handler) continue; // grpc-js answers UNIMPLEMENTED for methods without an implementation
      implementation[methodName] = method.responseStream
        ? this.wrapStream(fullName, methodName, handler as StreamHandler, callers)
        : this.wrap(fullName, methodName, handler as UnaryHandler, callers);
    }
    this.server.addService(service, implementation);
    this.health.set(fullName, 'NOT_SERVING');
    return this;
  }

  /** The caller table's refusal of this call (counted and logged), or null when the caller may make it. */
  private refusal(
    callers: ServiceCallers,
    serviceName: string,
    methodName: string,
    peer: string | undefined,
    metadata: grpc.Metadata,
  ): ReturnType<typeof decideCall> {
    const refusal = decideCall(callers, serviceName, methodName, peer, metadata);
    if (!refusal) return null;
    handled.inc({ service: serviceName, method: methodName, code: grpc.status[refusal.code] ?? 'UNKNOWN' });
    this.logger.warn({ rpc: `${serviceName}/${methodName}`, peer: peer ?? null, code: grpc.status[refusal.code] }, 'internal call refused');
    return refusal;
  }

  private wrap(
    serviceName: string,
    methodName: string,
    handler: UnaryHandler,
    callers: ServiceCallers,
  ): grpc.handleUnaryCall<unknown, unknown> {
    return (call, callback) => {
      const peer = this.tls ? peerIdentity(call) : undefined;
      const refusal = this.tls ? this.refusal(callers, serviceName, methodName, peer, call.metadata) : null;
      if (refusal) return callback(refusal as grpc.ServiceError);
      let controller: AbortController | undefined;
      const trace = this.carriesTrace ? carriedTrace(call.metadata, metadataGetter, false) : undefined;
      const context: CallContext = {
        ...contextFromMetadata(call.metadata),
        ...(trace && { trace, traceparent: trace.traceparent }),
        metadata: call.metadata,
        peer,
        // Made when a handler reads it: an AbortController and a listener on every call cost every call.
        get signal() {
          controller ??= abortedOnCancel(call);
          return controller.signal;
        },
      };
      const stopTimer = handlingSeconds.startTimer({ service: serviceName, method: methodName });
      const handling = this.carriesTrace
        ? handler(call.request, context)
        : withIncomingTraceContext(call.metadata, metadataGetter, () => handler(call.request, context));
      handling.then(
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
            this.logger.error(
              { err: error, rpc: `${serviceName}/${methodName}`, requestId: context.requestId, ...traceLogFields(trace) },
              'rpc failed',
            );
          }
          callback(serviceError as grpc.ServiceError);
        },
      );
    };
  }

  private wrapStream(
    serviceName: string,
    methodName: string,
    handler: StreamHandler,
    callers: ServiceCallers,
  ): grpc.handleServerStreamingCall<unknown, unknown> {
    return (call) => {
      const peer = this.tls ? peerIdentity(call) : undefined;
      const finish = (code: string) => handled.inc({ service: serviceName, method: methodName, code });
      const refusal = this.tls ? this.refusal(callers, serviceName, methodName, peer, call.metadata) : null;
      if (refusal) {
        call.emit('error', refusal as grpc.ServiceError); // grpc-js ends the call with this status (destroy() would send none)
        return;
      }
      const controller = abortedOnCancel(call);
      const context: CallContext = { ...contextFromMetadata(call.metadata), metadata: call.metadata, peer, signal: controller.signal };
      const send = (message: unknown): Promise<void> => {
        if (call.cancelled || controller.signal.aborted) return Promise.reject(new Error('the caller cancelled the call'));
        if (call.write(message)) return Promise.resolve();
        return new Promise((resolve, reject) => {
          const drained = () => {
            controller.signal.removeEventListener('abort', cancelled);
            resolve();
          };
          const cancelled = () => {
            call.off('drain', drained);
            reject(new Error('the caller cancelled the call'));
          };
          call.once('drain', drained);
          controller.signal.addEventListener('abort', cancelled, { once: true });
        });
      };
      const stopTimer = handlingSeconds.startTimer({ service: serviceName, method: methodName });
      withIncomingTraceContext(call.metadata, metadataGetter, () => handler(call.request, context, send)).then(
        () => {
          stopTimer();
          finish('OK');
          call.end();
        },
        (error: unknown) => {
          stopTimer();
          const serviceError = toServiceError(error);
          finish(grpc.status[serviceError.code ?? grpc.status.UNKNOWN] ?? 'UNKNOWN');
          if (controller.signal.aborted) return;
          if (!isDomainError(error) || error.kind === 'internal') {
            this.logger.error({ err: error, rpc: `${serviceName}/${methodName}`, requestId: context.requestId }, 'rpc failed');
          }
          call.emit('error', serviceError as grpc.ServiceError); // ends the call with this status; destroy() sends none
        },
      );
    };
  }

  /**
   * Binds (port 0 picks a free one) and returns the port: mutual TLS when the server has internal
   * TLS. `healthAddress` also serves the health service alone, in plaintext, for Kubernetes' gRPC
   * probes (they cannot present a certificate); nothing else is reachable there.
   */
  async listen(address: string, options: { healthAddress?: string | undefined } = {}): Promise<number> {
    const credentials = this.tls ? serverCredentials(this.tls) : grpc.ServerCredentials.createInsecure();
    this.port = await bind(this.server, address, credentials);
    if (options.healthAddress) {
      const health = new grpc.Server();
      health.addService(this.healthService.definition, this.healthService.implementation);
      this.healthServer = health;
      await bind(health, options.healthAddress, grpc.ServerCredentials.createInsecure());
    }
    return this.port;
  }

  /** Marks every service (and the server as a whole) serving or not, for readiness; liveness stays. */
  setServing(serving: boolean): void {
    for (const name of this.health.keys()) if (name !== LIVENESS_SERVICE) this.health.set(name, serving ? 'SERVING' : 'NOT_SERVING');
  }

  /**
   * Serving while every check passes (a dependency the process cannot work without: its store, its
   * broker), checked now and every `intervalMs`, so a replica that loses one leaves the Service's
   * endpoints and comes back by itself. Readiness only: liveness must not follow dependencies.
   */
  async serveWhileReady(checks: ReadinessCheck[], intervalMs?: number): Promise<void> {
    this.readiness?.stop();
    this.readiness = new ReadinessWatch(checks, (ready) => this.setServing(ready), this.logger, intervalMs);
    await this.readiness.start();
  }

  /** Stops taking calls, lets calls under way finish for up to `graceMs`, then cuts the rest. */
  async shutdown(graceMs = CALL_DRAIN_MS): Promise<void> {
    this.readiness?.stop();
    this.setServing(false);
    this.healthServer?.forceShutdown();
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

/** A controller aborted when the call is cancelled (by its caller, or its deadline passing). */
function abortedOnCancel(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): AbortController {
  const controller = new AbortController();
  if (call.cancelled) controller.abort();
  else call.once('cancelled', () => controller.abort());
  return controller;
}

function bind(server: grpc.Server, address: string, credentials: grpc.ServerCredentials): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.bindAsync(address, credentials, (error, port) => (error ? reject(error) : resolve(port)));
  });
}
