import { Agent, request } from 'undici';

/** HTTPS requests to a gateway with its self-signed certificate. */
export class HttpsClient {
  private readonly agent = new Agent({ connect: { rejectUnauthorized: false } });

  constructor(private readonly baseUrl: string) {}

  async send(
    method: string,
    path: string,
    options: { token?: string; json?: unknown; body?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any; text: string }> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await request(`${this.baseUrl}${path}`, { method: method as 'GET', headers, body, dispatcher: this.agent });
    const text = await response.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.statusCode, headers: response.headers, body: parsed, text };
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
