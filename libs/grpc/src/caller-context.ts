import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';

export type ActorKind = 'user' | 'api_key' | 'system' | 'operator';

/**
 * Who is calling, for whom. Set only by the gateway (from a verified credential) or by a service
 * acting on its own behalf; clients of the public API can never set these headers, because the
 * gateway builds metadata from scratch rather than forwarding anything.
 */
export interface CallerContext {
  workspaceId: string;
  actorId: string;
  actorKind: ActorKind;
  requestId: string;
  plan?: string;
  /** For api_key actors: the key's id (actions are attributed to actorId, the system user). */
  apiKeyId?: string;
  /**
   * What caused a service's own write, for the automation loop guard (the rules whose steps made
   * it). Only services set it; the gateway never does, so no client header can become a cause
   * (a client's X-Request-Id stays a plain request id).
   */
  cause?: string;
  /**
   * The W3C trace context of a caller that carries its trace by hand (the gateway) rather than in
   * the active context; sent as the `traceparent` metadata. Never read back into a CallerContext.
   */
  traceparent?: string;
}

const HEADER = {
  workspaceId: 'x-crm-workspace-id',
  actorId: 'x-crm-actor-id',
  actorKind: 'x-crm-actor-kind',
  requestId: 'x-crm-request-id',
  plan: 'x-crm-plan',
  apiKeyId: 'x-crm-api-key-id',
  cause: 'x-crm-cause',
} as const;

export const OPERATOR_TOKEN_HEADER = 'x-crm-operator-token';

const ACTOR_KINDS: ActorKind[] = ['user', 'api_key', 'system', 'operator'];

export function contextToMetadata(context: Partial<CallerContext>, metadata = new grpc.Metadata()): grpc.Metadata {
  for (const [key, header] of Object.entries(HEADER)) {
    const value = context[key as keyof CallerContext];
    if (value) metadata.set(header, value);
  }
  if (!context.requestId) metadata.set(HEADER.requestId, randomUUID());
  if (context.traceparent) metadata.set('traceparent', context.traceparent);
  return metadata;
}

function first(metadata: grpc.Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The caller context of an incoming call; fields the caller did not send are empty strings. */
export function contextFromMetadata(metadata: grpc.Metadata): CallerContext {
  const kind = first(metadata, HEADER.actorKind);
  return {
    workspaceId: first(metadata, HEADER.workspaceId) ?? '',
    actorId: first(metadata, HEADER.actorId) ?? '',
    actorKind: ACTOR_KINDS.includes(kind as ActorKind) ? (kind as ActorKind) : 'system',
    requestId: first(metadata, HEADER.requestId) ?? randomUUID(),
    plan: first(metadata, HEADER.plan),
    apiKeyId: first(metadata, HEADER.apiKeyId),
    cause: first(metadata, HEADER.cause),
  };
}
