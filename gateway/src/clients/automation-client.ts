import { GrpcClient, automationV1, type CallOptions, type CallRequest, type CallerContext, type InternalTls } from '@crm/grpc';
import { GRPC_DEADLINE_MS } from './auth-client';

/** What the gateway needs of the automation service client; tests may pass anything with this shape. */
export interface AutomationClient {
  call<K extends keyof automationV1.AutomationServiceMethods & string>(
    method: K,
    request: CallRequest<automationV1.AutomationServiceMethods, K>,
    context?: Partial<CallerContext>,
    options?: CallOptions,
  ): Promise<automationV1.AutomationServiceMethods[K]['response']>;
  close?(): void;
}

export const AUTOMATION_DEADLINE_MS = GRPC_DEADLINE_MS;

/** Connects on the first call, so building the app opens no channel to a service it may never use. */
export function lazyAutomationClient(address: string, tls: InternalTls | null): AutomationClient {
  let client: GrpcClient<automationV1.AutomationServiceMethods> | undefined;
  return {
    call: (method, request, context, options) =>
      (client ??= new GrpcClient<automationV1.AutomationServiceMethods>(
        automationV1.protoPath,
        automationV1.AutomationServiceName,
        address,
        tls,
      )).call(method, request, context, options),
    close: () => client?.close(),
  };
}
