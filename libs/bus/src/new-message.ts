import { randomUUID } from 'node:crypto';
import type { BusMessage } from './port';

export interface NewMessageContext {
  correlationId: string;
  headers?: Record<string, string>;
}

/** A message with a fresh id and the current time as `occurredAt`. */
export function newMessage<P>(type: string, payload: P, context: NewMessageContext): BusMessage<P> {
  return {
    id: randomUUID(),
    type,
    correlationId: context.correlationId,
    occurredAt: new Date().toISOString(),
    payload,
    ...(context.headers ? { headers: context.headers } : {}),
  };
}
