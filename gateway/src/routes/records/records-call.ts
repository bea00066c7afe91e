/**
 * Calls to the records service from the records routes: typed by rpc name, or (for the routes
 * every kind shares) by a name built from a kind's table.
 */
import type { CallRequest, recordsV1 } from '@crm/grpc';
import type { Response } from 'express';
import { RECORDS_DEADLINE_MS, type RecordsClient } from '../../clients/records-client';
import { callerContext } from '../../request-context';

type RecordsMethods = recordsV1.RecordsServiceMethods;
export type RecordsMethod = keyof RecordsMethods & string;

/** A records rpc, its request and answer typed by its name. */
export type RecordsCall = <K extends RecordsMethod>(
  method: K,
  request: CallRequest<RecordsMethods, K>,
  res: Response,
  timeoutMs?: number,
) => Promise<RecordsMethods[K]['response']>;

export function recordsCall(records: RecordsClient): RecordsCall {
  return (method, request, res, timeoutMs = RECORDS_DEADLINE_MS) => records.call(method, request, callerContext(res), { timeoutMs });
}

/**
 * A records rpc a kind's table names (`Create${kind.name}`), its messages read as plain objects:
 * the routes every kind shares stay one generic file. The name is still checked: each kind's
 * name is one of KindName, so `Create${kind.name}` is a union of the service's rpc names.
 */
export type KindCall = (method: RecordsMethod, request: object, res: Response, timeoutMs?: number) => Promise<Record<string, unknown>>;

export function kindCall(call: RecordsCall): KindCall {
  return (method, request, res, timeoutMs) => call(method, request, res, timeoutMs) as Promise<Record<string, unknown>>;
}
