/**
 * A webhook receiver for the suites: a plain HTTP server on loopback (the cluster runs with
 * WEBHOOK_ALLOW_PRIVATE_TARGETS=true) that keeps every request it got, verifies signatures the
 * way the README tells integrators to, and answers as each path's script says.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  path: string;
  eventId: string;
  signature: string;
  rawBody: string;
  body: { id: string; type: string; occurredAt: string; workspaceId: string; data: Record<string, any> };
  /** How this request was answered: a status, or 'hang' (no answer). */
  answer: number | 'hang';
}

/** What to answer to the nth request (from 1) for one event on one path. */
export type Script = (nth: number) => number | 'hang';

/** Whether `header` (`t=...,v1=...[,v1=...]`) signs `rawBody` with `secret`. */
export function signedWith(header: string, rawBody: string, secret: string): boolean {
  const parts = header.split(',');
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  if (!t) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return parts
    .filter((p) => p.startsWith('v1='))
    .some((p) => {
      const given = Buffer.from(p.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  private readonly scripts = new Map<string, Script>();
  private server?: http.Server;
  private readonly hanging = new Set<http.ServerResponse>();
  port = 0;

  script(path: string, script: Script): void {
    this.scripts.set(path, script);
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async start(port = 0): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        const eventId = String(req.headers['x-crm-event-id'] ?? '');
        const nth = this.received.filter((r) => r.path === path && r.eventId === eventId).length + 1;
        const answer = (this.scripts.get(path) ?? (() => 200))(nth);
        this.received.push({
          path,
          eventId,
          signature: String(req.headers['x-crm-signature'] ?? ''),
          rawBody,
          body: JSON.parse(rawBody),
          answer,
        });
        if (answer === 'hang') this.hanging.add(res);
        else res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'thanks' : 'not now');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
    this.server = undefined;
  }

  on(path: string): ReceivedHook[] {
    return this.received.filter((r) => r.path === path);
  }
}
