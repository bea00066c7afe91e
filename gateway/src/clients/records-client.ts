import { GrpcClient, recordsV1, type CallOptions, type CallRequest, type CallerContext, type InternalTls } from '@crm/grpc';
import { GRPC_DEADLINE_MS } from './auth-client';

/** What the gateway needs of the records service client; tests may pass anything with this shape. */
export interface RecordsClient {
  call<K extends keyof recordsV1.RecordsServiceMethods & string>(
    method: K,
    request: CallRequest<recordsV1.RecordsServiceMethods, K>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<recordsV1.RecordsServiceMethods[K]['response']>;
  close?(): void;
}

/** The same deadline as every other gateway call: a stalled records service is a quick 503. */
export const RECORDS_DEADLINE_MS = GRPC_DEADLINE_MS;

export function openRecordsClient(address: string, tls: InternalTls | null): GrpcClient<recordsV1.RecordsServiceMethods> {
  return new GrpcClient<recordsV1.RecordsServiceMethods>('records/v1/records.proto', recordsV1.RecordsServiceName, address, tls);
}

/**
 * A client that connects on its first call, so building the app (the OpenAPI test, the one-process
 * launcher) opens no channel to a records service it may never use.
 */
export function lazyRecordsClient(address: string, tls: InternalTls | null): RecordsClient {
  let client: GrpcClient<recordsV1.RecordsServiceMethods> | undefined;
  return {
    call: (method, request, context, options) => (client ??= openRecordsClient(address, tls)).call(method, request, context, options),
    close: () => client?.close(),
  };
}
