/** What every records rpc handler shares: its type, the caller a call carries, paging both ways. */
import type { CallContext, recordsV1, UnaryHandler } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { RecordsResources } from '../application/records-resources';
import type { AnyRecordView, Caller, Paging } from '../application/views';
import type { ListResult } from '../store/records-repository';
import type { MergeableType } from '../domain/record-merge';

type M = recordsV1.RecordsServiceMethods;
/** One handler per rpc, typed from the generated method map (its string index signature left out). */
export type Handlers = {
  [K in keyof M as string extends K ? never : K extends 'StreamRecords' ? never : K]: UnaryHandler<M[K]['request'], M[K]['response']>;
};
/** The handlers of some of the rpcs: each file of grpc/ serves one resource's. */
export type RpcHandlers<K extends keyof Handlers> = Pick<Handlers, K>;

/** The caller as the gateway (or a calling service) set it in metadata; a call without a workspace is refused. */
export function callerOf(context: CallContext): Caller {
  if (!context.workspaceId) throw DomainError.unauthenticated('The call carries no workspace.');
  const type = context.actorKind === 'user' || context.actorKind === 'api_key' ? context.actorKind : 'system';
  // A cause is a service's word about its own write: a user's or key's call never carries one.
  const cause = type === 'system' && context.cause ? context.cause : undefined;
  return {
    workspaceId: context.workspaceId,
    actor: { id: context.actorId || 'system', type },
    correlationId: context.requestId,
    ...(type === 'api_key' && context.apiKeyId ? { apiKeyId: context.apiKeyId } : {}),
    ...(cause ? { cause } : {}),
  };
}

export function paging(r: { offset?: number; limit?: number; cursor?: string }): Paging {
  return { offset: r.offset, limit: r.limit, cursor: nonEmpty(r.cursor) };
}

/** A cursor page counts nothing: its total travels as 0, and the gateway leaves `count` out. */
export function pageOf(page: ListResult<unknown>): { total: number; nextCursor: string } {
  return { total: page.total ?? 0, nextCursor: page.nextCursor ?? '' };
}

export function nonEmpty(value: string | undefined): string | undefined {
  return value ? value : undefined;
}

/** A list request left out of the call is a list with no filters. */
export function listRequest<T extends object>(r: T | null | undefined): T {
  return (r ?? {}) as T;
}

/** Merges into the survivor the request names and answers the survivor's record. */
export async function mergeRecords(
  records: RecordsResources,
  type: MergeableType,
  r: recordsV1.MergeRecordsRequest,
  c: CallContext,
): Promise<AnyRecordView['record']> {
  return (await records.merges.merge(callerOf(c), type, r.id, { mergeIds: r.mergeIds ?? [], winners: r.fields ?? {} })).record;
}
