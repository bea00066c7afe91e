import type { ServiceHandlers } from '@crm/grpc';

/**
 * The records service's calls. Only Ping exists until the records issue lands; the gateway reads the
 * UNIMPLEMENTED answer for anything else as 503.
 */
export function recordsHandlers(): ServiceHandlers {
  return {
    Ping: async () => ({ service: 'records' }),
  };
}
