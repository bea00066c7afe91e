import { Router } from 'express';
import type { RouteModule } from '../routes/route-module';
import { operation, type OpenApiPaths } from './operation';

/** Serves the document; it is public so clients and tools can read it before they have a key. */
export function openApiRoutes(document: () => Record<string, unknown>): RouteModule {
  const router = Router();
  router.get('/api/openapi.json', (_req, res) => {
    res.json(document());
  });
  return { name: 'openapi', access: 'public', router, paths: openApiPaths };
}

const openApiPaths: OpenApiPaths = {
  '/api/openapi.json': {
    get: operation({
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      tags: ['meta'],
      authenticated: false,
      responses: { 200: { description: 'The document.', schema: { type: 'object' } } },
    }),
  },
};
