import * as grpc from '@grpc/grpc-js';
import { injectTraceContext } from '@crm/telemetry';
import { contextToMetadata, type CallerContext } from './caller-context';
import type { CallRequest } from './call-request';
import { fromServiceError } from './errors';
import { channelCredentials, channelOptionsFor, type InternalTls } from './internal-tls';
import { loadService } from './proto-files';
import { metadataSetter } from './trace-metadata';

/** How a client spreads its calls over the addresses its target resolves to. */
export type LoadBalancing = 'pick_first' | 'round_robin';

/**
 * Targets that name every replica (`dns:///crm-records-headless:50052`, a headless Service, or
 * `ipv4:10.0.0.1:50052,10.0.0.2:50052`) are balanced call by call over all of them; a plain
 * `host:port` (a ClusterIP Service, loopback) or `unix:` socket keeps one connection to one address.
 */
export function loadBalancingFor(address: string): LoadBalancing {
  return /^(?:dns|ipv4|ipv6):/.test(address) ? 'round_robin' : 'pick_first';
}

/**
 * A headless Service's DNS answer changes as pods come and go; grpc-js asks again when a connection
 * ends (a server's max connection age, a pod leaving), at most this often. Below the servers'
 * connection age, so a replica added under load is found at the next connection turnover.
 */
export const DNS_MIN_RESOLUTION_INTERVAL_MS = 5_000;

/** What a call's stream (and a connection) may hold unread from the server. */
const FLOW_CONTROL_WINDOW_BYTES = 4 * 1024 * 1024;

/** The channel options of a client of `address`; `serverIdentity` is the name its certificate must carry (null: plaintext). */
export function clientChannelOptions(
  address: string,
  serverIdentity: string | null,
  balancing = loadBalancingFor(address),
): grpc.ChannelOptions {
  return {
    ...(serverIdentity !== null ? channelOptionsFor(serverIdentity) : {}),
    ...(balancing === 'round_robin' && {
      'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
      'grpc.dns_min_time_between_resolutions_ms': DNS_MIN_RESOLUTION_INTERVAL_MS,
    }),
    'grpc.max_receive_message_length': 32 * 1024 * 1024,
    'grpc.max_send_message_length': 32 * 1024 * 1024,
    // Reconnect quickly after a service restarts, so callers see it back within a second or two.
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 2000,
    // Channelz keeps per-call statistics nobody here reads; off, it costs nothing per call.
    'grpc.enable_channelz': 0,
    // HTTP/2's default window (64 KiB) is smaller than one message of a record stream, so the
    // sender waited for each message to be read before it could encode the next; this much lets it
    // run a few messages ahead, and bounds what a stream can hold unread.
    'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
  };
}

/**
 * A call the server refused before any handler saw it (HTTP/2 REFUSED_STREAM) is safe to send
 * again. A server closing an aged connection refuses the calls that crossed its GOAWAY; grpc-js
 * retries such a call once by itself, and when that retry lands on another replica's connection
 * closing at the same moment (replicas started together age together), it fails the call.
 */
const REFUSED_CALL_RETRIES = 2;

function wasRefused(error: grpc.ServiceError): boolean {
  return error.code === grpc.status.UNAVAILABLE && error.details === 'Stream refused by server';
}

/**
 * A method its proto marks `option idempotency_level = NO_SIDE_EFFECTS` (a read) is sent again on
 * any UNAVAILABLE, as gRPC's retry design allows for such methods: a connection or name resolution
 * failing for a moment (a replica's connection ageing out as the caller re-resolves, a pod going)
 * costs a read a few milliseconds instead of a 503. A write is sent again only when refused.
 */
const READ_RETRY_DELAY_MS = 50;

function sideEffectFree(Client: grpc.ServiceClientConstructor): Set<string> {
  const methods = Object.entries(Client.service as Record<string, { options?: { idempotency_level?: string } }>);
  return new Set(methods.filter(([, method]) => method.options?.idempotency_level === 'NO_SIDE_EFFECTS').map(([name]) => name));
}

export interface CallOptions {
  /** Milliseconds before the call fails with DEADLINE_EXCEEDED (read as unavailable). Default 10 s. */
  timeoutMs?: number;
  /** Extra metadata, e.g. the operator token. */
  metadata?: Record<string, string>;
}

/**
 * Method name → [request, response] types; the generated `*Methods` interfaces have this shape. No
 * index signature: a method the service does not have is a compile error at the call.
 */
export type MethodMap<M = any> = { [K in keyof M]: { request: object; response: object } };

/** The internal identity that serves a proto service: its package's first word (`auth.v1.AuthService` → `auth`). */
export function servingIdentity(fullName: string): string {
  return fullName.split('.')[0]!;
}

/**
 * A promise-based client: `client.call('LogIn', request, context)` resolves with the response or
 * rejects with a DomainError. With internal TLS (`tls`, this process's certificate) it presents
 * that certificate and accepts only a server whose certificate names `serverIdentity` (by default
 * the service's own, see servingIdentity); null speaks plaintext (unit specs, INTERNAL_TLS=off).
 * `balancing` defaults to what the address asks for (loadBalancingFor).
 */
export class GrpcClient<M extends MethodMap<M>> {
  private readonly client: grpc.Client;
  /** The methods sent again on any UNAVAILABLE (sideEffectFree). */
  private readonly reads: Set<string>;

  constructor(
    protoPath: string,
    fullName: string,
    readonly address: string,
    tls: InternalTls | null,
    serverIdentity: string = servingIdentity(fullName),
    balancing: LoadBalancing = loadBalancingFor(address),
  ) {
    const Client = loadService(protoPath, fullName);
    this.reads = sideEffectFree(Client);
    const credentials = tls ? channelCredentials(tls) : grpc.credentials.createInsecure();
    this.client = new Client(address, credentials, clientChannelOptions(address, tls ? serverIdentity : null, balancing));
  }

  call<K extends keyof M & string>(
    method: K,
    request: CallRequest<M, K>,
    context: Partial<CallerContext> = {},
    options: CallOptions = {},
  ): Promise<M[K]['response']> {
    const metadata = contextToMetadata(context);
    if (options.metadata) for (const [key, value] of Object.entries(options.metadata)) metadata.set(key, value);
    injectTraceContext(metadata, metadataSetter);
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    const fn = (this.client as unknown as Record<string, grpc.requestCallback<unknown> | undefined>)[method];
    if (typeof fn !== 'function') return Promise.reject(new Error(`No method ${method} on ${this.address}`));
    const read = this.reads.has(method);
    const again = (error: grpc.ServiceError) => wasRefused(error) || (read && error.code === grpc.status.UNAVAILABLE);
    const attempt = (attemptsLeft: number): Promise<M[K]['response']> =>
      new Promise((resolve, reject) => {
        // grpc-js captures a stack trace on every call to decorate its errors; fromServiceError makes
        // our own, so that capture (~6% of a call's CPU, both sides together) is skipped.
        const stackTraceLimit = Error.stackTraceLimit;
        Error.stackTraceLimit = 0;
        try {
          (fn as unknown as (...args: unknown[]) => void).call(
            this.client,
            request,
            metadata,
            { deadline },
            (error: grpc.ServiceError | null, response: unknown) => {
              if (!error) resolve(response as M[K]['response']);
              else if (attemptsLeft > 0 && again(error) && Date.now() + READ_RETRY_DELAY_MS < deadline) {
                const delay = wasRefused(error) ? 0 : READ_RETRY_DELAY_MS;
                setTimeout(() => resolve(attempt(attemptsLeft - 1)), delay);
              } else reject(fromServiceError(error, `${method} ${this.address}`));
            },
          );
        } finally {
          Error.stackTraceLimit = stackTraceLimit;
        }
      });
    return attempt(REFUSED_CALL_RETRIES);
  }

  /**
   * A server-streaming call, read as an async iterable: the next message is asked for only when the
   * loop takes one, so a slow consumer slows the server (HTTP/2 flow control) instead of buffering.
   * Errors arrive as DomainErrors; leaving the loop early cancels the call. No deadline unless
   * `timeoutMs` is given: a stream lasts as long as its data.
   */
  async *stream<K extends keyof M & string>(
    method: K,
    request: CallRequest<M, K>,
    context: Partial<CallerContext> = {},
    options: CallOptions = {},
  ): AsyncGenerator<M[K]['response']> {
    const metadata = contextToMetadata(context);
    if (options.metadata) for (const [key, value] of Object.entries(options.metadata)) metadata.set(key, value);
    injectTraceContext(metadata, metadataSetter);
    const fn = (this.client as unknown as Record<string, unknown>)[method];
    if (typeof fn !== 'function') throw new Error(`No method ${method} on ${this.address}`);
    const callOptions = options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs };
    const call = (fn as (...args: unknown[]) => grpc.ClientReadableStream<M[K]['response']>).call(
      this.client,
      request,
      metadata,
      callOptions,
    );
    let ended = false;
    try {
      for await (const message of call) yield message as M[K]['response'];
      ended = true;
    } catch (error) {
      ended = true;
      throw 'code' in (error as object) ? fromServiceError(error as grpc.ServiceError, `${method} ${this.address}`) : error;
    } finally {
      if (!ended) call.cancel();
    }
  }

  /** Resolves once connected (or rejects after `timeoutMs`); for start-up ordering. */
  waitForReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.client.waitForReady(Date.now() + timeoutMs, (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): void {
    this.client.close();
  }
}
