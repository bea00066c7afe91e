import { Router } from 'express';
import { createLogger } from '@crm/observability';
import { createApp, type GatewayApp } from '../app';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { gatewayConfig } from '../config';
import { MemoryCounter } from '../testing/memory-counter';
import { compareRoutes, registeredRoutes } from './route-inventory';

function buildApp(): GatewayApp {
  return createApp({
    config: gatewayConfig(),
    logger: createLogger('openapi-test', { level: 'silent' }),
    auth: { call: () => Promise.reject(new Error('no auth service in this test')) },
    rateLimitCounter: new MemoryCounter(),
    invalidation: new LocalInvalidationChannel(createLogger('test', { level: 'silent' })),
  });
}

function collectRefs(value: unknown, refs: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => collectRefs(item, refs));
  else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') refs.push(inner);
      else collectRefs(inner, refs);
    }
  }
  return refs;
}

describe('the OpenAPI document', () => {
  it('documents every route the app serves, and nothing it does not', () => {
    const gateway = buildApp();
    expect(compareRoutes(gateway.app, gateway.openApiDocument())).toEqual({ undocumented: [], unserved: [] });
  });

  it('states the roles of every authenticated operation, settings writes for admins with their 403', () => {
    const paths = buildApp().openApiDocument().paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if ((op.security as unknown[]).length === 0 || path === '/api/auth/logout-all/') continue;
        const settingsWrite = method !== 'get' && method !== 'head' && path.startsWith('/api/settings/');
        // The privacy operations and the audit log state their roles themselves: admins only, reads included.
        const adminOnly = settingsWrite || path.startsWith('/api/privacy/') || path === '/api/audit-log/';
        expect([`${method} ${path}`, op['x-roles']]).toEqual([`${method} ${path}`, adminOnly ? ['admin'] : ['admin', 'member', 'apiKey']]);
        if (settingsWrite) expect(op.responses).toHaveProperty('403');
      }
    }
    expect(paths['/api/settings/users/']?.post?.['x-roles']).toEqual(['admin']);
    expect(paths['/api/auth/logout-all/']?.post?.['x-roles']).toEqual(['admin', 'member']);
  });

  it('notices a route that a module serves but does not document', () => {
    const gateway = buildApp();
    const extra = Router();
    extra.get('/api/secret-extra/:id', (_req, res) => {
      res.end();
    });
    gateway.app.use(extra);
    expect(compareRoutes(gateway.app, gateway.openApiDocument()).undocumented).toEqual(['GET /api/secret-extra/{id}']);
  });

  it('sees the routes of the areas built so far', () => {
    expect(registeredRoutes(buildApp().app)).toEqual(
      expect.arrayContaining([
        'POST /api/auth/login',
        'GET /api/auth/me',
        'DELETE /api/settings/api-keys/{id}',
        'GET /api/openapi.json',
        'GET /healthz',
      ]),
    );
  });

  it('is OpenAPI 3.1 with a bearer scheme, servers, and no dangling references', () => {
    const document = buildApp().openApiDocument() as Record<string, any>;
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toHaveLength(1);
    expect(document.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    for (const ref of collectRefs(document)) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<any>((node, part) => node?.[part], document);
      expect({ ref, resolved: target !== undefined }).toEqual({ ref, resolved: true });
    }
  });

  it("documents the rate-limit headers on every operation's responses", () => {
    const document = buildApp().openApiDocument() as Record<string, any>;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      if (path === '/healthz' || path === '/readyz') continue; // probes are not rate limited
      for (const [method, operation] of Object.entries<any>(operations)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const resolved = response.$ref ? document.components.responses[response.$ref.split('/').pop()] : response;
          expect({ at: `${method} ${path} ${status}`, headers: Object.keys(resolved.headers ?? {}) }).toEqual({
            at: `${method} ${path} ${status}`,
            headers: expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
          });
        }
      }
    }
  });

  it('lists every tag its operations use, each once, and states its license', () => {
    const document = buildApp().openApiDocument() as Record<string, any>;
    const used = new Set<string>();
    for (const operations of Object.values<Record<string, any>>(document.paths))
      for (const op of Object.values<any>(operations)) for (const tag of op.tags) used.add(tag);
    const listed = document.tags.map((t: { name: string }) => t.name);
    expect([...listed].sort()).toEqual([...used].sort());
    expect(new Set(listed).size).toBe(listed.length);
    expect(document.info.license).toEqual({ name: 'Apache 2.0', identifier: 'Apache-2.0' });
  });

  it('documents 400 on every operation that reads a body or a query, and on every authenticated one', () => {
    const document = buildApp().openApiDocument() as Record<string, any>;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths))
      for (const [method, op] of Object.entries<any>(operations)) {
        const readsInput = op.requestBody || op.security.length > 0 || (op.parameters ?? []).some((p: any) => p.in === 'query');
        if (readsInput)
          expect({ at: `${method} ${path}`, has400: '400' in op.responses }).toEqual({ at: `${method} ${path}`, has400: true });
      }
  });

  it('declares HEAD beside every GET, with the same parameters and statuses and no body', () => {
    const document = buildApp().openApiDocument() as Record<string, any>;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      if (!operations.get) {
        expect({ path, head: operations.head }).toEqual({ path, head: undefined });
        continue;
      }
      const { head, get } = operations;
      expect({ path, statuses: Object.keys(head.responses), parameters: head.parameters }).toEqual({
        path,
        statuses: Object.keys(get.responses),
        parameters: get.parameters,
      });
      for (const response of Object.values<any>(head.responses)) if (!response.$ref) expect(response.content).toBeUndefined();
    }
  });

  it('lists no 429 on the probes, which are never throttled, and X-Request-Id on every answer, errors included', () => {
    const document = buildApp().openApiDocument() as Record<string, any>;
    for (const probe of ['/healthz', '/readyz']) expect(Object.keys(document.paths[probe].get.responses)).not.toContain('429');
    for (const [name, response] of Object.entries<any>(document.components.responses))
      expect({ name, headers: Object.keys(response.headers ?? {}) }).toEqual({ name, headers: expect.arrayContaining(['X-Request-Id']) });
  });
});
