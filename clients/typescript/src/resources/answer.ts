import { errorFromAnswer } from '../crm-error';

const etags = new WeakMap<object, string>();

/**
 * The `ETag` the record came with (`"3"`), to send back as `ifMatch` so that an update or delete
 * applies only while nobody else changed the record; undefined for anything else.
 */
export function etagOf(record: object): string | undefined {
  return etags.get(record);
}

/** The data of a successful openapi-fetch call (remembering its ETag), or the error for its answer. */
export async function answer<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromAnswer(response, error);
  const etag = response.headers.get('etag');
  if (etag && typeof data === 'object' && data !== null) etags.set(data, etag);
  return data as T;
}

export interface CreateOptions {
  /** The key the POST is sent (and retried) with; by default a new one per call. */
  idempotencyKey?: string;
}

export interface ConditionalOptions {
  /** Apply only while the record is at this version (an `ETag`, e.g. from `etagOf(record)`); otherwise 412. */
  ifMatch?: string;
}

export function createHeaders(options: CreateOptions | undefined): Record<string, string> {
  return options?.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
}

export function conditionalHeaders(options: ConditionalOptions | undefined): Record<string, string> {
  return options?.ifMatch ? { 'If-Match': options.ifMatch } : {};
}
