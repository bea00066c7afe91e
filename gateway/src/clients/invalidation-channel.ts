/**
 * Cache invalidation fan-out between gateway replicas. The production channel (Redis pub/sub) and
 * the in-process one come from @crm/rate-limit; this is the shape the gateway relies on, plus an
 * in-process channel for a single process and for tests.
 */
export type InvalidationEvent = { kind: 'api_key_revoked'; keyId: string } | { kind: 'workspace_changed'; workspaceId: string };

export type InvalidationHandler = (event: InvalidationEvent) => void;

export interface InvalidationChannel {
  publish(event: InvalidationEvent): Promise<void> | void;
  subscribe(handler: InvalidationHandler): unknown;
  close?(): Promise<void> | void;
}

export function createLocalInvalidationChannel(): InvalidationChannel {
  const handlers = new Set<InvalidationHandler>();
  return {
    publish(event) {
      for (const handler of handlers) handler(event);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    close() {
      handlers.clear();
    },
  };
}
