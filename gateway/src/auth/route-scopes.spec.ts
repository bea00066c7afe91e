import { Router } from 'express';
import { createLogger } from '@crm/observability';
import { LocalInvalidationChannel } from '@crm/rate-limit';
import { API_KEY_SCOPES, SCOPE_FAMILIES } from '@crm/vocabulary';
import { createApp, type GatewayApp } from '../app';
import { gatewayConfig } from '../config';
import { registeredRoutes } from '../openapi/route-inventory';
import { MemoryCounter } from '../testing/memory-counter';
import { keyMayCall, routeScope, RouteScopeTable } from './route-scopes';

function buildApp(): GatewayApp {
  return createApp({
    config: gatewayConfig(),
    logger: createLogger('route-scopes-test', { level: 'silent' }),
    auth: { call: () => Promise.reject(new Error('no auth service in this test')) },
    rateLimitCounter: new MemoryCounter(),
    invalidation: new LocalInvalidationChannel(createLogger('test', { level: 'silent' })),
  });
}

describe('the route → scope table', () => {
  it('gives every served route a scope', () => {
    const routes = registeredRoutes(buildApp().app);
    expect(routes.length).toBeGreaterThan(50);
    expect(new RouteScopeTable(routes).unscoped()).toEqual([]);
  });

  it('notices a served route that no rule covers', () => {
    const gateway = buildApp();
    const extra = Router();
    extra.get('/api/reports/:id', (_req, res) => res.end());
    gateway.app.use(extra);
    expect(new RouteScopeTable(registeredRoutes(gateway.app)).unscoped()).toEqual(['GET /api/reports/{id}']);
  });

  it('reads with GET and HEAD and writes with every other method', () => {
    expect(routeScope('GET', '/api/contacts/{id}')).toBe('contacts:read');
    expect(routeScope('HEAD', '/api/contacts/{id}')).toBe('contacts:read');
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) expect(routeScope(method, '/api/contacts/{id}')).toBe('contacts:write');
  });

  it.each([
    ['GET', '/api/contacts', 'contacts:read'],
    ['POST', '/api/contacts/query', 'contacts:read'],
    ['POST', '/api/leads/aggregate', 'leads:read'],
    ['POST', '/api/contacts/{id}/merge', 'contacts:write'],
    ['POST', '/api/contacts/batch', 'contacts:write'],
    ['POST', '/api/opportunities/batch', 'opportunities:write'],
    ['POST', '/api/leads/{id}/convert', 'leads:write'],
    ['GET', '/api/accounts/{id}/contacts', 'accounts:read'],
    ['DELETE', '/api/opportunities/{id}', 'opportunities:write'],
    ['GET', '/api/automations/rules/{id}/logs', 'automations:read'],
    ['POST', '/api/automations/templates/{id}/install', 'automations:write'],
    ['POST', '/api/contacts/import', 'imports:write'],
    ['POST', '/api/crm/contacts/import/start', 'imports:write'],
    ['GET', '/api/crm/contacts/import-jobs/{job_uid}/errors', 'imports:read'],
    ['GET', '/api/activities', 'activity:read'],
    ['GET', '/api/contacts/{id}/history', 'contacts:read'],
    ['GET', '/api/opportunities/{id}/history', 'opportunities:read'],
    ['GET', '/api/audit-log', 'closed'],
    ['GET', '/api/tasks', 'activity:read'],
    ['GET', '/api/emails', 'activity:read'],
    ['GET', '/api/notifications', 'activity:read'],
    ['POST', '/api/crm/sources', 'activity:write'],
    ['GET', '/api/exports/{id}', 'exports:read'],
    ['POST', '/api/exports', 'exports:write'],
    ['GET', '/api/events', 'events:read'],
    ['POST', '/api/events', 'closed'],
    ['GET', '/api/auth/me', 'none'],
    ['POST', '/api/auth/logout-all', 'closed'],
    ['GET', '/api/openapi.json', 'none'],
    ['GET', '/api/settings/webhooks', 'allScopes'],
    ['POST', '/api/settings/api-keys', 'closed'],
    ['GET', '/api/settings/custom-fields', 'none'],
    ['GET', '/api/settings/custom-fields/{id}', 'none'],
    ['POST', '/api/settings/custom-fields', 'closed'],
    ['PATCH', '/api/settings/custom-fields/{id}', 'closed'],
    ['DELETE', '/api/settings/custom-fields/{id}', 'closed'],
    ['GET', '/api/unheard-of', undefined],
  ])('%s %s needs %s', (method, path, scope) => {
    expect(routeScope(method, path)).toBe(scope);
  });

  it('lets write include read, and nothing else', () => {
    expect(keyMayCall(['contacts:write'], 'contacts:read')).toBe(true);
    expect(keyMayCall(['contacts:read'], 'contacts:write')).toBe(false);
    expect(keyMayCall(['leads:write'], 'contacts:read')).toBe(false);
    expect(keyMayCall(['leads:read'], 'none')).toBe(true);
    expect(keyMayCall([...API_KEY_SCOPES], 'closed')).toBe(false);
    expect(keyMayCall([...API_KEY_SCOPES], undefined)).toBe(false);
  });

  it('keeps the settings reads for keys holding every scope, write-only lists included', () => {
    const writes = SCOPE_FAMILIES.map((family) => (family === 'events' ? 'events:read' : `${family}:write`));
    expect(keyMayCall(writes, 'allScopes')).toBe(true);
    expect(keyMayCall(writes.slice(1), 'allScopes')).toBe(false);
  });

  it('matches a request path to the route Express serves, static segments first', () => {
    const table = new RouteScopeTable(['GET /api/contacts/{id}', 'POST /api/contacts/import', 'POST /api/contacts/{id}/merge']);
    expect(table.match('POST', '/api/contacts/import/')?.scope).toBe('imports:write');
    expect(table.match('GET', '/API//Contacts/import')?.scope).toBe('contacts:read');
    expect(table.match('HEAD', '/api/contacts/con_1')?.scope).toBe('contacts:read');
    expect(table.match('POST', '/api/contacts/con_1/merge')?.scope).toBe('contacts:write');
    expect(table.match('DELETE', '/api/contacts/con_1')).toBeUndefined();
  });

  it('documents the scope of every operation as x-scope, with the 403 of a key outside it', () => {
    const paths = buildApp().openApiDocument().paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const [path, operations] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(operations)) {
        expect([method, path, op['x-scope']]).toEqual([method, path, routeScope(method, path)]);
        if ((op.security as unknown[]).length === 0) expect(op['x-scope']).toBe('none');
        else if (op['x-scope'] !== 'none') expect(op.responses).toHaveProperty('403');
      }
    }
  });
});
