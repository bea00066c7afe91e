import type { ServiceHandlers } from '@crm/grpc';

/**
 * The automation service's calls. Only Ping exists until the automation issue lands; the gateway reads the
 * UNIMPLEMENTED answer for anything else as 503.
 */
export function automationHandlers(): ServiceHandlers {
  return {
    Ping: async () => ({ service: 'automation' }),
  };
}
