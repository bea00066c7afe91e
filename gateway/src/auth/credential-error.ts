import { DomainError } from '@crm/observability';

/** RFC 6750 error codes for the `WWW-Authenticate: Bearer` challenge of a 401. */
export type BearerErrorCode = 'invalid_request' | 'invalid_token';

const BEARER_ERROR = Symbol('bearerError');

type CredentialError = DomainError & { [BEARER_ERROR]?: BearerErrorCode };

/** A 401 whose challenge names what was wrong with the credential (none when it was missing). */
export function credentialError(message: string, code?: BearerErrorCode): DomainError {
  const error = new DomainError('unauthenticated', message) as CredentialError;
  if (code) error[BEARER_ERROR] = code;
  return error;
}

export function bearerErrorOf(error: DomainError): BearerErrorCode | undefined {
  return (error as CredentialError)[BEARER_ERROR];
}
