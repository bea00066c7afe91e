/**
 * What the gateway learns about a request as it passes the middleware, kept in `res.locals`:
 * the request id, and the caller once a credential has been verified. The gRPC caller context is
 * built from these only, never from the client's headers.
 */
import type { Response } from 'express';
import type { CallerContext } from '@crm/grpc';
import { DomainError } from '@crm/observability';
import type { LimitDecision } from '@crm/rate-limit';
import { traceLogFields, type RequestTrace } from '@crm/telemetry';

export interface Caller {
  workspaceId: string;
  /** The user, or the workspace's system user for API keys. */
  actorId: string;
  actorKind: 'user' | 'api_key';
  plan: string;
  /** 0 when auth gave none: the plan's default applies. */
  rateLimitPerMinute: number;
  apiKeyId?: string;
  /** An API key's scopes (every scope for a key created without any); absent for users. */
  scopes?: readonly string[];
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      requestId: string;
      /** The request's trace, carried by hand (see trace-context.ts); absent when tracing is off or spans are exported. */
      trace?: RequestTrace;
      caller?: Caller;
      /** A credential that failed, held until the rate limiter has counted the request. */
      authFailure?: unknown;
      /** The decision whose X-RateLimit-* headers the response carries. */
      rateLimit?: LimitDecision;
    }
  }
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller;
  if (!caller) throw new DomainError('internal', 'Route reached without an authenticated caller.');
  return caller;
}

/** What identifies the request in a call to another service: its id and its trace. */
export interface RequestIds {
  requestId: string;
  traceparent?: string;
}

export function requestIds(res: Response): RequestIds {
  const { requestId, trace } = res.locals;
  return trace ? { requestId, traceparent: trace.traceparent } : { requestId };
}

/** The request's trace fields for a log line, named as the logger names them for processes that carry the trace in context. */
export function traceFields(res: Response): { trace_id?: string; span_id?: string } {
  return traceLogFields(res.locals.trace);
}

export function callerContext(res: Response): CallerContext {
  const caller = callerOf(res);
  return {
    workspaceId: caller.workspaceId,
    actorId: caller.actorId,
    actorKind: caller.actorKind,
    ...requestIds(res),
    plan: caller.plan,
    ...(caller.apiKeyId ? { apiKeyId: caller.apiKeyId } : {}),
  };
}
