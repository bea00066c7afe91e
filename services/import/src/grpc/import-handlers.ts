import type { ServiceHandlers } from '@crm/grpc';

/**
 * The import service's calls. Only Ping exists until the import issue lands; the gateway reads the
 * UNIMPLEMENTED answer for anything else as 503.
 */
export function importHandlers(): ServiceHandlers {
  return {
    Ping: async () => ({ service: 'import' }),
  };
}
