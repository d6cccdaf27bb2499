// GET /openapi.json: the OpenAPI 3.1 document of warpgate's own endpoints (openapi/document.ts),
// built once for this instance (it leaves out the status page where publicMode turns it off).
import type { Express } from 'express';
import { openApiDocument } from '../openapi/document.js';

export function mountOpenApiRoute(app: Express, opts: Parameters<typeof openApiDocument>[0]): void {
  const document = openApiDocument(opts);
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
}
