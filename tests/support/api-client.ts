import { Agent, request } from 'undici';
import { recordAnswer } from './openapi-conformance';

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, with no JSON encoding (for malformed-body tests). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  token?: string;
  /** How long to wait for the answer's headers and then its body (default 15 s each). */
  timeoutMs?: number;
}

/**
 * A client of the public API over real HTTPS, trusting only the cluster's certificate. Every answer
 * is checked against the OpenAPI document the gateway serves (tests/support/openapi-conformance.ts).
 */
export class ApiClient {
  private readonly agent: Agent;

  constructor(
    readonly baseUrl: string,
    ca: string,
    private readonly defaultToken?: string,
    /** The loopback address to connect from (127.0.0.0/8), to stand for another client machine. */
    localAddress?: string,
  ) {
    // Idle connections are dropped after 2 s, below the gateway's drain delay, as a load balancer in
    // front of the gateway is set up (docs/containers.md): a stopping replica then never closes a
    // connection this client is about to reuse.
    this.agent = new Agent({ connect: { ca }, localAddress, connections: 16, keepAliveTimeout: 2_000, keepAliveMaxTimeout: 2_000 });
  }

  withToken(token: string): ApiClient {
    const client = Object.create(this) as ApiClient;
    (client as unknown as { defaultToken: string }).defaultToken = token;
    return client;
  }

  async call<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token ?? this.defaultToken;
    if (token && !headers.authorization) headers.authorization = `Bearer ${token}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await request(`${this.baseUrl}${path}`, {
      method: method as 'GET',
      headers,
      body,
      dispatcher: this.agent,
      headersTimeout: options.timeoutMs ?? 15_000,
      bodyTimeout: options.timeoutMs ?? 15_000,
    });
    const text = await response.body.text();
    let parsed: unknown = text;
    // JSON answers (application/json, application/problem+json), not JSON lines (application/x-ndjson).
    if (/^application\/(?:[\w.-]+\+)?json\b/.test((response.headers['content-type'] ?? '').toString()) && text.length > 0)
      parsed = JSON.parse(text);
    const flat: Record<string, string> = {};
    for (const [key, value] of Object.entries(response.headers)) flat[key] = Array.isArray(value) ? value.join(', ') : String(value);
    await recordAnswer({ method, path, status: response.statusCode, headers: flat, text, body: parsed, requestBody: options.body }, () =>
      this.openApiDocument(),
    );
    return { status: response.statusCode, headers: flat, body: parsed as T, text };
  }

  private async openApiDocument(): Promise<unknown> {
    const response = await request(`${this.baseUrl}/api/openapi.json`, {
      dispatcher: this.agent,
      headersTimeout: 15_000,
      bodyTimeout: 15_000,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`GET /api/openapi.json answered ${response.statusCode}`);
    }
    return response.body.json();
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.call<T>('GET', path, options);
  }
  post<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.call<T>('POST', path, { ...options, body });
  }
  patch<T = any>(path: string, body?: unknown, options: RequestOptions = {}) {
    return this.call<T>('PATCH', path, { ...options, body });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.call<T>('DELETE', path, options);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
