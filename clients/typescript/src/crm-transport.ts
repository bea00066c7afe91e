/**
 * The fetch that openapi-fetch is given: it adds the credential, refreshes an expired access token
 * (one refresh shared by every call that met the 401, since a refresh token works once), adds an
 * `Idempotency-Key` to authenticated POSTs, and retries what can be retried safely.
 *
 * What is retried, at most `retry.attempts` times in all:
 * - a 429, whatever the method: the rate limit refuses before anything runs;
 * - a 503 or a connection reset (ECONNRESET, a socket closed mid-answer, ...) only when running the
 *   call twice cannot do it twice: GET and HEAD; a POST carrying an `Idempotency-Key` (the gateway
 *   answers the retry with the first answer); a PATCH or DELETE carrying `If-Match` with a version
 *   (a retry of one that was applied answers 412, which is thrown: read the record again);
 * - a 409 to a keyed POST's retry that the gateway did not replay: the first attempt still runs.
 * The wait is the answer's `Retry-After` when it has one, otherwise exponential backoff with full
 * jitter; a `Retry-After` longer than `retry.maxDelayMs` is not waited for and the answer is returned.
 */
import { CrmApiError, errorFromAnswer } from './crm-error';

export type FetchLike = (request: Request) => Promise<Response>;

/** A user's session: both are replaced on every refresh (rotation). */
export interface Tokens {
  access: string;
  refresh: string;
}

export type Credentials = { apiKey: string } | { tokens: Tokens } | { accessToken: string };

export interface RetryOptions {
  /** Attempts in all, the first included (default 4; 1 turns retries off). */
  attempts?: number;
  /** The first backoff step without Retry-After, doubled each attempt (default 250 ms). */
  baseDelayMs?: number;
  /** The longest wait the client accepts, Retry-After included (default 60 s). */
  maxDelayMs?: number;
}

export interface TransportOptions {
  baseUrl: string;
  fetch?: FetchLike;
  credentials?: Credentials;
  /** Called with every new pair after a login or a refresh: persist the refresh token here, the previous one no longer works. */
  onTokens?: (tokens: Tokens) => void | Promise<void>;
  retry?: RetryOptions;
  /** For tests: how the client waits. */
  sleep?: (ms: number) => Promise<void>;
}

const RESET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** A connection that failed or broke before the whole answer came (fetch wraps the cause). */
export function isConnectionReset(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RESET_CODES.has(code)) return true;
  }
  return false;
}

/** Auth routes that take no credential and no Idempotency-Key (signup, login, refresh, logout, invitations). */
const ANONYMOUS_AUTH = /\/api\/(?:v1\/)?auth\/(?:signup|login|token\/refresh|logout|invitations\/accept)\/?$/;

/** Running the request again cannot apply it twice. */
function isRepeatable(method: string, headers: Headers): boolean {
  if (method === 'GET' || method === 'HEAD') return true;
  if (method === 'POST') return headers.has('idempotency-key');
  if (method === 'PATCH' || method === 'DELETE') return /^"[^"]*"$/.test(headers.get('if-match')?.trim() ?? '');
  return false;
}

function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export class CrmTransport {
  private readonly baseUrl: string;
  private readonly send: FetchLike;
  private readonly retry: Required<RetryOptions>;
  private readonly sleep: (ms: number) => Promise<void>;
  private credential: { kind: 'key' | 'access'; value: string } | undefined;
  private refreshToken: string | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(private readonly options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.send = options.fetch ?? ((request) => globalThis.fetch(request));
    this.retry = { attempts: 4, baseDelayMs: 250, maxDelayMs: 60_000, ...options.retry };
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    const credentials = options.credentials;
    if (credentials && 'apiKey' in credentials) this.credential = { kind: 'key', value: credentials.apiKey };
    else if (credentials && 'tokens' in credentials) this.useTokens(credentials.tokens);
    else if (credentials) this.credential = { kind: 'access', value: credentials.accessToken };
  }

  /** The current session's pair, when the client holds one. */
  get tokens(): Tokens | undefined {
    return this.credential?.kind === 'access' && this.refreshToken
      ? { access: this.credential.value, refresh: this.refreshToken }
      : undefined;
  }

  /** Takes a new pair (after a login) and tells `onTokens`. */
  async signedIn(tokens: Tokens): Promise<void> {
    this.useTokens(tokens);
    await this.options.onTokens?.(tokens);
  }

  signedOut(): void {
    this.credential = undefined;
    this.refreshToken = undefined;
  }

  /** openapi-fetch's fetch. */
  readonly fetch: FetchLike = (request) => this.exchange(request, true);

  private useTokens(tokens: Tokens): void {
    this.credential = { kind: 'access', value: tokens.access };
    this.refreshToken = tokens.refresh;
  }

  private async exchange(request: Request, authenticate: boolean): Promise<Response> {
    const body = request.body ? await request.arrayBuffer() : undefined;
    const headers = new Headers(request.headers);
    const method = request.method.toUpperCase();
    const anonymous = !authenticate || ANONYMOUS_AUTH.test(new URL(request.url).pathname);
    if (!anonymous && method === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', globalThis.crypto.randomUUID());
    const explicitAuthorization = headers.has('authorization');
    let refreshed = false;
    for (let attempt = 1; ; attempt += 1) {
      // A call made while a refresh runs waits for its token instead of meeting a 401 of its own.
      if (!anonymous && !explicitAuthorization) await this.refreshing?.catch(() => undefined);
      const sent = anonymous || explicitAuthorization ? undefined : this.credential;
      if (sent) headers.set('authorization', `Bearer ${sent.value}`);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await this.send(new Request(request.url, { method, headers, body, signal: request.signal }));
      } catch (error) {
        if (!isConnectionReset(error)) throw error;
        failure = error;
      }
      if (response?.status === 401 && sent?.kind === 'access' && !refreshed && this.refreshToken) {
        refreshed = true;
        await response.body?.cancel();
        await this.refreshAfter(sent.value);
        attempt -= 1; // the retry after a refresh is not one of the bounded attempts
        continue;
      }
      const retryable = response ? this.isRetryable(response, method, headers, attempt) : isRepeatable(method, headers);
      const delay = response ? (retryAfterMs(response) ?? this.backoff(attempt)) : this.backoff(attempt);
      if (!retryable || attempt >= this.retry.attempts || delay > this.retry.maxDelayMs) {
        if (response) return response;
        throw failure;
      }
      await response?.body?.cancel();
      await this.sleep(delay);
    }
  }

  private isRetryable(response: Response, method: string, headers: Headers, attempt: number): boolean {
    if (response.status === 429) return true;
    if (response.status === 503) return isRepeatable(method, headers);
    // A keyed POST retried while its first attempt still runs gets 409 without Idempotent-Replayed
    // (a replayed 409 is the first attempt's own answer): try again once that one has answered.
    return (
      response.status === 409 &&
      attempt > 1 &&
      method === 'POST' &&
      headers.has('idempotency-key') &&
      !response.headers.has('idempotent-replayed')
    );
  }

  private backoff(attempt: number): number {
    return Math.random() * Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
  }

  /** One refresh for every call that met a 401 with the same access token; later ones just use the new token. */
  private async refreshAfter(staleAccess: string): Promise<void> {
    if (this.credential?.value !== staleAccess) return;
    this.refreshing ??= this.rotate().finally(() => {
      this.refreshing = undefined;
    });
    await this.refreshing;
  }

  private async rotate(): Promise<void> {
    const refresh = this.refreshToken;
    const request = new Request(`${this.baseUrl}/api/auth/token/refresh/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh }),
    });
    const response = await this.exchange(request, false);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: kept as text for the error
    }
    if (!response.ok) {
      // A refused refresh token stays refused: later 401s are returned as they are.
      if (response.status === 401) this.refreshToken = undefined;
      throw errorFromAnswer(response, body);
    }
    const tokens = body as Tokens;
    if (typeof tokens.access !== 'string' || typeof tokens.refresh !== 'string')
      throw new CrmApiError(
        response.status,
        'The refresh answer has no token pair.',
        body,
        response.headers.get('x-request-id') ?? undefined,
      );
    await this.signedIn(tokens);
  }
}
