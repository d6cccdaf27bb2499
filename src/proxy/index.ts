// The read endpoints the service forwards: Data API (seed 000 sections 4.3-4.15), Metrics API
// (seed 001 sections 4.1-4.2) and the node's JSON-RPC and health APIs (seed 002), as one express
// router the server mounts. Unmatched requests fall through (next()) to the server's own routes.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { Gateway } from './gateway.js';
import { serveNode } from './node-routes.js';
import { splitTarget } from './request-target.js';
import { serveRest } from './rest-handler.js';
import { DATA_API_ROUTES, METRICS_API_ROUTES, type RestRoute } from './rest-routes.js';

export type { ProxyOptions, ProxyLogger, ProxyObservation } from './options.js';
export { PROXY_DEFAULTS } from './options.js';
export { ProxyConfigError, UpstreamError, type UpstreamName, type UpstreamFailure } from './errors.js';
export { dataApiError, metricsApiError, jsonRpcError, gethRpcError, reasonPhrase } from './error-shapes.js';
export type { DataApiErrorBody, MetricsApiErrorBody, JsonRpcErrorResponse, JsonRpcId } from './error-shapes.js';

import type { ProxyOptions } from './options.js';

const REST_ROUTES: readonly RestRoute[] = [...DATA_API_ROUTES, ...METRICS_API_ROUTES];

export function createProxyRouter(opts: ProxyOptions): { router: Router; close(): Promise<void> } {
  const gw = new Gateway(opts);
  const router = express.Router();

  router.use((req: Request, res: Response, next: NextFunction) => {
    const { pathname } = splitTarget(req.url);
    const served = pathname.startsWith('/ext/') ? serveNode(gw, pathname, req, res) : serveRestRoute(req, res, pathname);
    served.then(
      (handled) => {
        if (!handled) next();
      },
      (err: unknown) => next(err),
    );
  });

  async function serveRestRoute(req: Request, res: Response, pathname: string): Promise<boolean> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    for (const route of REST_ROUTES) {
      const match = route.pattern.match(pathname);
      if (!match) continue;
      await serveRest(gw, route, match, req, res);
      return true;
    }
    return false;
  }

  let closed = false;
  return {
    router,
    async close() {
      if (closed) return;
      closed = true;
      gw.close();
    },
  };
}
