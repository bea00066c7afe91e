/**
 * The gateway's clients of the three privacy services (proto/privacy/v1/privacy.proto), one per
 * process that holds a person's data, each reached at that service's address. Typed by the
 * generated method maps, so a proto change fails to compile here.
 */
import { GrpcClient, privacyV1, type CallOptions, type CallRequest, type CallerContext, type InternalTls, type MethodMap } from '@crm/grpc';

export interface PrivacyClient<M extends MethodMap<M>> {
  call<K extends keyof M & string>(
    method: K,
    request: CallRequest<M, K>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<M[K]['response']>;
  close?(): void;
}

export interface PrivacyClients {
  records: PrivacyClient<privacyV1.RecordsPrivacyServiceMethods>;
  import: PrivacyClient<privacyV1.ImportPrivacyServiceMethods>;
  automation: PrivacyClient<privacyV1.AutomationPrivacyServiceMethods>;
}

/**
 * An export or erasure walks a workspace's import reports and delivery logs a page at a time: longer
 * than a record read, so a longer deadline than the gateway's usual one.
 */
export const PRIVACY_DEADLINE_MS = 120_000;

/**
 * Connects on the first call, so building the app opens no channel to a service it may never use.
 * The privacy package is served by three processes, so the certificate each must show is named
 * here (`identity`), not read off the package name as for the other services.
 */
function lazy<M extends MethodMap<M>>(serviceName: string, identity: string, address: string, tls: InternalTls | null): PrivacyClient<M> {
  let client: GrpcClient<M> | undefined;
  return {
    call: (method, request, context, options) =>
      (client ??= new GrpcClient<M>(privacyV1.protoPath, serviceName, address, tls, identity)).call(method, request, context, options),
    close: () => client?.close(),
  };
}

export function lazyPrivacyClients(
  addresses: { records: string; import: string; automation: string },
  tls: InternalTls | null,
): PrivacyClients {
  return {
    records: lazy(privacyV1.RecordsPrivacyServiceName, 'records', addresses.records, tls),
    import: lazy(privacyV1.ImportPrivacyServiceName, 'import', addresses.import, tls),
    automation: lazy(privacyV1.AutomationPrivacyServiceName, 'automation', addresses.automation, tls),
  };
}
