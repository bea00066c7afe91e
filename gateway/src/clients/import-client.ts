/**
 * The gateway's two ways to the import service: gRPC for job reads, and the upload endpoint that
 * multipart bodies are streamed to (IMPORT_UPLOAD_URL; IMPORT_UPLOAD_SECRET is sent as
 * x-crm-upload-secret and must match the import service's UPLOAD_SECRET when that is set). With
 * internal TLS both present the gateway's certificate and accept only import's.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { checkServerIdentity } from 'node:tls';
import { GrpcClient, importV1, type CallOptions, type CallRequest, type CallerContext, type InternalTls } from '@crm/grpc';

export interface ImportClient {
  call<K extends keyof importV1.ImportServiceMethods & string>(
    method: K,
    request: CallRequest<importV1.ImportServiceMethods, K>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<importV1.ImportServiceMethods[K]['response']>;
  close?(): void;
}

export function openImportClient(address: string, tls: InternalTls | null): GrpcClient<importV1.ImportServiceMethods> {
  return new GrpcClient<importV1.ImportServiceMethods>(importV1.protoPath, importV1.ImportServiceName, address, tls);
}

export interface UploadTarget {
  /** `http(s)://host:port`, or `unix:/path/to/socket` (one-process mode). */
  url: string;
  secret?: string | undefined;
  /** The gateway's internal certificate: the endpoint is then spoken to over mutual TLS. */
  tls: InternalTls | null;
}

/** What http-proxy connects to: a URL, or a Unix socket (HTTPS over it with internal TLS). */
export function proxyTarget(target: UploadTarget): string | { socketPath: string; protocol: 'http:' | 'https:'; host: 'localhost' } {
  const { url, tls } = target;
  return url.startsWith('unix:') ? { socketPath: url.slice('unix:'.length), protocol: tls ? 'https:' : 'http:', host: 'localhost' } : url;
}

/**
 * Kept alive so that a refusal the upload endpoint answers before the end of the body does not close
 * the connection under the body still being forwarded (EPIPE); the endpoint reads and drops the rest.
 * An agent timeout is what makes Node apply the endpoint's `Keep-Alive: timeout=` hint, so an idle
 * socket is dropped here before the endpoint closes it under a new request. With internal TLS the
 * endpoint must present import's certificate, whatever address it is reached at.
 */
export function uploadAgent(target: UploadTarget): HttpAgent {
  const options = { keepAlive: true, timeout: 60_000 };
  if (!target.tls) return target.url.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
  return new HttpsAgent({
    ...options,
    ca: target.tls.ca,
    cert: target.tls.cert,
    key: target.tls.key,
    servername: 'import',
    checkServerIdentity: (_host, cert) => checkServerIdentity('import', cert),
  });
}
