import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@crm/observability';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { createApp } from '../app';
import { gatewayConfig } from '../config';
import { MemoryCounter } from '../testing/memory-counter';
import { API_DOCS_CSP } from './api-docs.routes';

const silent = createLogger('api-docs-test', { level: 'silent' });
let server: Server;
let base: string;

beforeAll(async () => {
  const { app } = createApp({
    config: gatewayConfig(),
    logger: silent,
    auth: { call: () => Promise.reject(new Error('no auth service in this test')) },
    rateLimitCounter: new MemoryCounter(),
    invalidation: new LocalInvalidationChannel(silent),
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function page(): Promise<{ response: Response; html: string }> {
  const response = await fetch(`${base}/api/docs/`);
  return { response, html: await response.text() };
}

/** Every src and href of the page. */
function references(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
}

describe('the API reference page', () => {
  it('is an HTML page under its own CSP, counted in the address budget like the document', async () => {
    const { response, html } = await page();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toBe(API_DOCS_CSP);
    expect(response.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(html).toContain('<div id="swagger-ui"></div>');
  });

  it('loads only files the gateway serves under /api/docs/, with no inline script or style', async () => {
    const { html } = await page();
    expect(references(html).every((url) => url.startsWith('/api/docs/'))).toBe(true);
    expect(html).not.toMatch(/<script>|<style|\sstyle=|\son\w+=/);
  });

  it('serves each of those files under the same CSP, uncounted', async () => {
    const { html } = await page();
    for (const url of references(html)) {
      const response = await fetch(`${base}${url}`);
      expect({ url, status: response.status, csp: response.headers.get('content-security-policy') }).toEqual({
        url,
        status: 200,
        csp: API_DOCS_CSP,
      });
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await fetch(`${base}/api/docs/swagger-ui-bundle.js`)).headers.get('content-type')).toMatch(/javascript/);
    expect((await fetch(`${base}/api/docs/swagger-ui.css`)).headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('serves no other file of swagger-ui-dist (its own index.html, initializer, source maps)', async () => {
    for (const file of ['index.html', 'swagger-initializer.js', 'swagger-ui-bundle.js.map', 'package.json', '../package.json']) {
      const response = await fetch(`${base}/api/docs/${file}`);
      // Without a credential an unknown path is a 401, as anywhere under /api/.
      expect({ file, status: response.status }).toEqual({ file, status: 401 });
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
    }
  });

  it("leaves the API's own answers their CSP that allows nothing", async () => {
    const response = await fetch(`${base}/api/openapi.json`);
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it('is served under /api/v1/ as well, and without the trailing slash', async () => {
    for (const path of ['/api/v1/docs/', '/api/docs']) {
      const response = await fetch(`${base}${path}`);
      expect({ path, status: response.status, csp: response.headers.get('content-security-policy') }).toEqual({
        path,
        status: 200,
        csp: API_DOCS_CSP,
      });
    }
  });
});
