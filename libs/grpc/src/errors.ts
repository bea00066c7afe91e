import * as grpc from '@grpc/grpc-js';
import { DomainError, type ErrorKind, type FieldErrors } from '@crm/observability';

const FIELDS_HEADER = 'x-crm-field-errors';
/**
 * Set on a call refused by a server's caller table (caller-policy.ts): a fault of the deployment,
 * not of the end client, so the caller reads it as `internal` (a 500 at the gateway, logged) rather
 * than as the client's own 401 or 403.
 */
export const INTERNAL_REFUSAL_HEADER = 'x-crm-internal-refusal';

/** The one map from a domain error kind to a gRPC status code. */
export function statusForKind(kind: ErrorKind): grpc.status {
  switch (kind) {
    case 'invalid_argument':
      return grpc.status.INVALID_ARGUMENT;
    case 'validation_failed':
      return grpc.status.FAILED_PRECONDITION;
    case 'unauthenticated':
      return grpc.status.UNAUTHENTICATED;
    case 'permission_denied':
      return grpc.status.PERMISSION_DENIED;
    case 'not_found':
      return grpc.status.NOT_FOUND;
    case 'conflict':
      return grpc.status.ALREADY_EXISTS;
    case 'precondition_failed':
      return grpc.status.ABORTED;
    case 'payload_too_large':
      return grpc.status.OUT_OF_RANGE;
    case 'rate_limited':
      return grpc.status.RESOURCE_EXHAUSTED;
    case 'unavailable':
      return grpc.status.UNAVAILABLE;
    case 'internal':
      return grpc.status.INTERNAL;
    default: {
      const unreachable: never = kind;
      throw new Error(`Unmapped error kind ${String(unreachable)}`);
    }
  }
}

/** The inverse, for callers of a service: a gRPC status back to a domain error kind. */
export function kindForStatus(code: grpc.status): ErrorKind {
  switch (code) {
    case grpc.status.INVALID_ARGUMENT:
      return 'invalid_argument';
    case grpc.status.FAILED_PRECONDITION:
      return 'validation_failed';
    case grpc.status.UNAUTHENTICATED:
      return 'unauthenticated';
    case grpc.status.PERMISSION_DENIED:
      return 'permission_denied';
    case grpc.status.NOT_FOUND:
      return 'not_found';
    case grpc.status.ALREADY_EXISTS:
      return 'conflict';
    case grpc.status.ABORTED:
      return 'precondition_failed';
    case grpc.status.OUT_OF_RANGE:
      return 'payload_too_large';
    case grpc.status.RESOURCE_EXHAUSTED:
      return 'rate_limited';
    case grpc.status.UNAVAILABLE:
    case grpc.status.DEADLINE_EXCEEDED:
    case grpc.status.UNIMPLEMENTED:
      return 'unavailable';
    default:
      return 'internal';
  }
}

/** A DomainError as a gRPC error for a handler's callback. Unknown errors become a bare INTERNAL. */
/**
 * JSON with every character outside printable ASCII escaped (`\\u00e9`): a metadata value may hold
 * nothing else, and grpc-js throws (taking the process down) on one that does, e.g. a field error
 * quoting a client's "é". JSON.parse reads the escapes back.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function toServiceError(error: unknown): Partial<grpc.ServiceError> {
  if (error instanceof DomainError) {
    const metadata = new grpc.Metadata();
    if (error.fields) metadata.set(FIELDS_HEADER, asciiJson(error.fields));
    return { code: statusForKind(error.kind), details: error.message, metadata };
  }
  return { code: grpc.status.INTERNAL, details: 'Internal error.' };
}

/** A failed call as a DomainError, keeping field errors; UNIMPLEMENTED and transport failures read as unavailable. */
export function fromServiceError(error: grpc.ServiceError, call?: string): DomainError {
  if (error.metadata?.get(INTERNAL_REFUSAL_HEADER).length) {
    const refused = new DomainError('internal', `Internal call refused: ${error.details}`);
    return withCallFacts(refused, error, call);
  }
  const kind = kindForStatus(error.code);
  let fields: FieldErrors | undefined;
  const [raw] = error.metadata?.get(FIELDS_HEADER) ?? [];
  if (typeof raw === 'string') {
    try {
      fields = JSON.parse(raw) as FieldErrors;
    } catch {
      fields = undefined;
    }
  }
  const message =
    error.code === grpc.status.UNIMPLEMENTED
      ? 'This operation is not available yet.'
      : kind === 'unavailable'
        ? 'A backing service is unavailable; try again shortly.'
        : error.details || 'Internal error.';
  return withCallFacts(new DomainError(kind, message, fields), error, call);
}

/**
 * What a log needs to tell one failed call from another (the client sees none of it): the status,
 * grpc-js's own words (`No connection established`, `Stream refused by server`, a deadline) and the
 * method and address called.
 */
function withCallFacts(domainError: DomainError, error: grpc.ServiceError, call: string | undefined): DomainError {
  Object.assign(domainError, { grpcCode: error.code, grpcDetails: error.details, ...(call !== undefined && { call }) });
  return domainError;
}
