/**
 * The one error type services raise. `kind` says what went wrong in transport-neutral words;
 * libs/grpc maps it to a gRPC status and the gateway maps that to the spec's HTTP status and body.
 * Services never pick HTTP numbers.
 */
export type ErrorKind =
  | 'invalid_argument' // 400 {detail}
  | 'validation_failed' // 422 {field: [messages]}
  | 'unauthenticated' // 401
  | 'permission_denied' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'precondition_failed' // 412 {detail}: the record changed since the If-Match version
  | 'payload_too_large' // 413
  | 'rate_limited' // 429
  | 'unavailable' // 503
  | 'internal'; // 500, message never shown to clients

export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly fields?: FieldErrors,
  ) {
    super(message);
  }

  static invalid(message: string): DomainError {
    return new DomainError('invalid_argument', message);
  }

  static validation(fields: FieldErrors): DomainError {
    return new DomainError('validation_failed', 'Validation failed.', fields);
  }

  static notFound(message = 'Not found.'): DomainError {
    return new DomainError('not_found', message);
  }

  static unauthenticated(message: string): DomainError {
    return new DomainError('unauthenticated', message);
  }

  static conflict(message: string): DomainError {
    return new DomainError('conflict', message);
  }

  static preconditionFailed(message: string): DomainError {
    return new DomainError('precondition_failed', message);
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
