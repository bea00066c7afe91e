/**
 * Which internal identities may call which methods of a service, and which caller context they may
 * claim. Each server declares its table next to its handlers; GrpcServer applies it to every call
 * before the handler runs, from the peer's verified certificate (internal-tls.ts).
 */
import * as grpc from '@grpc/grpc-js';
import type { ActorKind } from './caller-context';
import { INTERNAL_REFUSAL_HEADER } from './errors';

export interface CallerRule<Method extends string = string> {
  /** The methods this identity may call: every method of the service, or those named. */
  methods: 'all' | readonly Method[];
  /**
   * The actor kinds it may claim in the caller metadata (x-crm-actor-kind; a workspace without a
   * kind reads as `system`). A call that claims no caller at all (LogIn, VerifyApiKey) needs none.
   */
  actors: readonly ActorKind[];
}

/** Identity → rule, for one service. An identity not listed may call nothing. */
export type ServiceCallers<Method extends string = string> = Readonly<Record<string, CallerRule<Method>>>;

/** Why a call was refused, in the grpc-js error shape (marked as an internal refusal); null when it may go on. */
export type CallRefusal = Pick<grpc.ServiceError, 'code' | 'details' | 'metadata'> | null;

function refusal(code: grpc.status, details: string): CallRefusal {
  const metadata = new grpc.Metadata();
  metadata.set(INTERNAL_REFUSAL_HEADER, '1');
  return { code, details, metadata };
}

const WORKSPACE = 'x-crm-workspace-id';
const ACTOR_ID = 'x-crm-actor-id';
const ACTOR_KIND = 'x-crm-actor-kind';

function header(metadata: grpc.Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The actor kind a call claims, or undefined when it names no caller at all. */
export function claimedActorKind(metadata: grpc.Metadata): string | undefined {
  const kind = header(metadata, ACTOR_KIND);
  if (kind) return kind;
  return header(metadata, WORKSPACE) || header(metadata, ACTOR_ID) ? 'system' : undefined;
}

/**
 * Decides one call: `identity` is the peer's certificate name (undefined: it presented none, which
 * only a plaintext listener lets through). A refusal names the identity and the method, never
 * anything the metadata said.
 */
export function decideCall(
  callers: ServiceCallers,
  service: string,
  method: string,
  identity: string | undefined,
  metadata: grpc.Metadata,
): CallRefusal {
  if (!identity) {
    return refusal(grpc.status.UNAUTHENTICATED, `${service}/${method} needs a client certificate of the internal CA.`);
  }
  const rule = Object.hasOwn(callers, identity) ? callers[identity] : undefined;
  if (!rule || (rule.methods !== 'all' && !rule.methods.includes(method))) {
    return refusal(grpc.status.PERMISSION_DENIED, `${identity} may not call ${service}/${method}.`);
  }
  const kind = claimedActorKind(metadata);
  if (kind !== undefined && !rule.actors.includes(kind as ActorKind)) {
    return refusal(grpc.status.PERMISSION_DENIED, `${identity} may not call ${service}/${method} for the caller it names.`);
  }
  return null;
}
