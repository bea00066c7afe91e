import { GrpcClient, authV1, type CallOptions, type CallRequest, type CallerContext, type InternalTls } from '@crm/grpc';

/** What the gateway needs of the auth service client; tests may pass anything with this shape. */
export interface AuthClient {
  call<K extends keyof authV1.AuthServiceMethods & string>(
    method: K,
    request: CallRequest<authV1.AuthServiceMethods, K>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<authV1.AuthServiceMethods[K]['response']>;
  close?(): void;
}

/**
 * Every call the gateway makes has a deadline well under a client's patience, so a stalled
 * service becomes a quick 503 rather than a hung request.
 */
export const GRPC_DEADLINE_MS = 5_000;

export function openAuthClient(address: string, tls: InternalTls | null): GrpcClient<authV1.AuthServiceMethods> {
  return new GrpcClient<authV1.AuthServiceMethods>('auth/v1/auth.proto', authV1.AuthServiceName, address, tls);
}
