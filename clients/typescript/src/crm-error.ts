/**
 * What a call that did not succeed throws: CrmValidationError for a 422 that lists failing fields
 * (`{"<field>": ["message", ...]}`), CrmApiError with the status and the `detail` for every other
 * answer outside 2xx.
 */
export class CrmApiError extends Error {
  override readonly name: string = 'CrmApiError';

  constructor(
    readonly status: number,
    /** The answer's `detail`, when it has one. */
    readonly detail: string | undefined,
    /** The parsed answer body (or its text when it is not JSON). */
    readonly body: unknown,
    /** The answer's `X-Request-Id`, to quote when reporting a problem. */
    readonly requestId: string | undefined,
  ) {
    super(`${status}${detail ? `: ${detail}` : ''}`);
  }
}

/** A 422 naming the failing fields: nested ones as dotted paths (`steps.2.config.duration`), the body as a whole as `nonFieldErrors`. */
export class CrmValidationError extends CrmApiError {
  override readonly name = 'CrmValidationError';

  constructor(
    readonly fields: Record<string, string[]>,
    requestId: string | undefined,
  ) {
    super(422, undefined, fields, requestId);
    this.message = `422: ${Object.entries(fields)
      .map(([field, messages]) => `${field}: ${messages.join(' ')}`)
      .join('; ')}`;
  }
}

function isFieldErrors(body: unknown): body is Record<string, string[]> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const entries = Object.entries(body);
  return entries.length > 0 && entries.every(([, messages]) => Array.isArray(messages) && messages.every((m) => typeof m === 'string'));
}

/** The error for an answer outside 2xx whose body openapi-fetch has read (JSON when it parsed, else text). */
export function errorFromAnswer(response: Response, body: unknown): CrmApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (response.status === 422 && isFieldErrors(body)) return new CrmValidationError(body, requestId);
  const detail =
    typeof body === 'object' && body !== null && typeof (body as { detail?: unknown }).detail === 'string'
      ? (body as { detail: string }).detail
      : undefined;
  return new CrmApiError(response.status, detail, body, requestId);
}
