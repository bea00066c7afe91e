import { Router, type Request, type Response } from 'express';
import type { RouteModule } from '../routes/route-module';
import { operation, type OpenApiPaths } from './operation';

/**
 * The document as the credential's workspace sees it (its custom fields typed), or undefined to
 * serve the public one: no credential, one that fails, or a service that cannot answer.
 */
export type PersonalDocument = (req: Request, res: Response) => Promise<Record<string, unknown> | undefined>;

/**
 * Serves the document; it is public so clients and tools can read it before they have a key. With a
 * Bearer credential it states the workspace's custom fields (`personal`); a credential that does not
 * verify gets the public document, never a 401, since the document needs none.
 */
export function openApiRoutes(document: () => Record<string, unknown>, personal?: PersonalDocument): RouteModule {
  const router = Router();
  router.get('/api/openapi.json', async (req, res) => {
    const own = req.get('authorization') && personal ? await personal(req, res) : undefined;
    res.json(own ?? document());
  });
  return { name: 'openapi', access: 'public', router, paths: openApiPaths() };
}

/** The OpenAPI part of {@link openApiRoutes}. */
export function openApiPaths(): OpenApiPaths {
  return {
    '/api/openapi.json': {
      get: operation({
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        description:
          "Needs no credential. With a Bearer credential (an access token or an API key), each record kind's `customFields` states the workspace's custom fields as typed properties; without one (or with one that does not verify) it is an open object.",
        tags: ['meta'],
        authenticated: false,
        responses: { 200: { description: 'The document.', schema: { type: 'object' } } },
      }),
    },
  };
}
