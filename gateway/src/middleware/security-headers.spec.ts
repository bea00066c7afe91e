import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import { securityHeaders } from './security-headers';

/** The headers an app answering through `middleware` sends, without the ones every Express answer has. */
async function headersThrough(middleware: RequestHandler[]): Promise<Record<string, string>> {
  const app = express();
  app.disable('x-powered-by');
  app.use(...middleware);
  app.get('/', (_req, res) => {
    res.json({ ok: true });
  });
  const server: Server = await new Promise((resolve) => {
    const s = createServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await response.text();
    const headers = Object.fromEntries(response.headers.entries());
    for (const name of ['date', 'connection', 'keep-alive', 'content-length', 'content-type']) delete headers[name];
    return headers;
  } finally {
    server.close();
  }
}

describe('security headers', () => {
  it('sends exactly what helmet with the gateway options and Cache-Control: no-store send', async () => {
    const byHelmet = await headersThrough([
      helmet({
        strictTransportSecurity: { maxAge: 63_072_000, includeSubDomains: true },
        frameguard: { action: 'deny' },
        contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
        referrerPolicy: { policy: 'no-referrer' },
        xPoweredBy: false,
      }),
      (_req, res, next) => {
        res.setHeader('Cache-Control', 'no-store');
        next();
      },
    ]);
    expect(Object.keys(byHelmet).length).toBeGreaterThanOrEqual(13);
    expect(await headersThrough([securityHeaders()])).toEqual(byHelmet);
  });

  it('forbids framing, sniffing, referrers, caching and every source', async () => {
    const headers = await headersThrough([securityHeaders()]);
    expect(headers).toMatchObject({
      'content-security-policy': "default-src 'none';frame-ancestors 'none'",
      'strict-transport-security': 'max-age=63072000; includeSubDomains',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });
});
