/**
 * The interactive API reference at /api/docs/: Swagger UI (swagger-ui-dist, plain static files)
 * rendering the served /api/openapi.json, where a reader can paste a token and try a call. Every
 * file comes from this gateway, so the page runs under a CSP that allows only this origin (and
 * data: images, which Swagger UI's stylesheet uses for its icons); the API's own answers keep
 * their `default-src 'none'`.
 */
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import type { RouteModule } from '../routes/route-module';
import { API_DOCS_INITIALIZER } from './api-docs-initializer';
import { operation, type OpenApiPaths } from './operation';

export const API_DOCS_PATH = '/api/docs/';

export const API_DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>CRM API reference</title>
    <link rel="stylesheet" href="/api/docs/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/api/docs/swagger-ui-bundle.js"></script>
    <script src="/api/docs/api-docs.js"></script>
  </body>
</html>
`;

/** The swagger-ui-dist files the page loads, and nothing else of that package. */
const DIST_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];

function swaggerUiDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/**
 * `pageLimit` counts the page in the client address's anonymous budget, as the document is; its
 * scripts, stylesheet and icons are not counted (one page load is five files).
 */
export function apiDocsRoutes(pageLimit: RequestHandler): RouteModule {
  const router = Router();
  const dir = swaggerUiDir();
  router.get('/api/docs', pageLimit, (_req, res) => {
    res.setHeader('Content-Security-Policy', API_DOCS_CSP);
    res.type('html').send(PAGE);
  });
  // Anything else under /api/docs/ goes on to the API's answer for an unknown path.
  router.use('/api/docs', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const file = req.path.slice(1);
    if (file !== 'api-docs.js' && !DIST_FILES.includes(file)) return next();
    res.setHeader('Content-Security-Policy', API_DOCS_CSP);
    if (file === 'api-docs.js') {
      res.setHeader('Cache-Control', 'no-cache');
      res.type('js').send(API_DOCS_INITIALIZER);
      return;
    }
    // Revalidated on every load (send's ETag and Last-Modified), so an upgraded package is never stale.
    res.sendFile(path.join(dir, file), { cacheControl: false, headers: { 'Cache-Control': 'no-cache' } }, (error) => {
      if (error) next(error);
    });
  });
  return { name: 'api-docs', access: 'public', router, paths: apiDocsPaths() };
}

/** The OpenAPI part of {@link apiDocsRoutes}. */
export function apiDocsPaths(): OpenApiPaths {
  return {
    [API_DOCS_PATH]: {
      get: operation({
        operationId: 'getApiReference',
        summary: 'This document as an interactive reference (Swagger UI)',
        description:
          'An HTML page, for people: every operation of this document, with a form to paste a token (**Authorize**) and try a call. Its scripts, stylesheet and icons are served under /api/docs/ by the gateway itself; nothing is loaded from elsewhere.',
        tags: ['meta'],
        authenticated: false,
        responses: { 200: { description: 'The page.', mediaType: 'text/html', schema: { type: 'string' } } },
      }),
    },
  };
}
