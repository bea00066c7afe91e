import { DomainError } from '@crm/observability';
import { credentialError } from '../auth/credential-error';
import { httpErrorFor } from './error-handler';

describe('the error table', () => {
  it('hides the message of an internal error', () => {
    expect(httpErrorFor(new DomainError('internal', 'db password is hunter2'))).toEqual({
      status: 500,
      body: { detail: 'Internal server error.' },
      headers: {},
    });
  });

  it('answers an unavailable service with 503 saying so', () => {
    const { status, body } = httpErrorFor(new DomainError('unavailable', 'This operation is not available yet.'));
    expect(status).toBe(503);
    expect(body.detail).toMatch(/unavailable/);
  });

  it('keys validation errors by field', () => {
    expect(httpErrorFor(DomainError.validation({ email: ['Enter a valid email address.'] }))).toEqual({
      status: 422,
      body: { email: ['Enter a valid email address.'] },
      headers: {},
    });
  });

  it('answers every not-found with the same body', () => {
    expect(httpErrorFor(DomainError.notFound('Contact cnt_1 is in another workspace.')).body).toEqual({ detail: 'Not found.' });
  });

  it('challenges a bad token with invalid_token', () => {
    expect(httpErrorFor(credentialError('Invalid token.', 'invalid_token')).headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="crm", error="invalid_token"',
    });
  });

  it.each([
    ['invalid_argument', 400],
    ['permission_denied', 403],
    ['conflict', 409],
    ['payload_too_large', 413],
    ['rate_limited', 429],
  ] as const)('maps %s to %i with its detail', (kind, status) => {
    expect(httpErrorFor(new DomainError(kind, 'why'))).toEqual({ status, body: { detail: 'why' }, headers: {} });
  });
});
