// The express app: request logging, the security headers and the Host check (edge.ts), counting, CORS, then the routes (ops, aggregation, the
// forwarded read endpoints), a 404 for the rest, and errors thrown before a route's own handler
// (body parsing) answered in the request's dialect. Errors never leak a stack (errors.ts).
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config/config.js';
import { GLACIER, dialectOfPath } from './dialects.js';
import { sendError } from './errors.js';
import { mountAggregationRoutes, type AggregationRouteDeps } from './routes/aggregation.js';
import { mountOpsRoutes, type HttpMetrics, type ReadinessCheck } from './routes/ops.js';
import { mountStatusRoutes, type StatusSource } from './routes/status.js';
import { mountOpenApiRoute } from './routes/openapi.js';
import { mountRelayerRoutes } from './routes/relayer.js';
import type { RelayerControl } from '../relayer/ports.js';
import { PACKAGE_VERSION } from '../util/package-info.js';
import { cutPeerText, MAX_QUOTED_CHARS } from '../util/peer-text.js';
import { hostCheck, setSecurityHeaders } from './edge.js';

interface AppDeps extends AggregationRouteDeps {
  metrics: HttpMetrics;
  readiness: ReadinessCheck;
  /** The status page's report; none: no status page (publicMode). */
  status?: StatusSource;
  proxyRouter?: Router;
  /** A running relayer (relayer.routes): its manual relay API and message lookups (routes/relayer.ts). */
  relayer?: RelayerControl;
  /** False for `warpgate relay`: the relayer's port serves no aggregation API (default true). */
  aggregationApi?: boolean;
}

function requestLogger(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    // One line per request: method, path, status, time. No bodies, no API keys.
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: { ignore: (req) => req.url === '/health' || req.url === '/metrics' || req.url === '/status.json' },
    // An aggregation's line says which P-Chain height signed (routes/aggregation.ts sets it).
    customProps: (_req, res) => ((res as Partial<Response>).locals?.aggregation as Record<string, unknown> | undefined) ?? {},
  });
}

/** Off unless cors.origins lists origins ('*' for any). */
function cors(origins: Config['cors']['origins']) {
  const any = origins.includes('*');
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (origin && (any || origins.includes(origin))) {
      res.setHeader('access-control-allow-origin', any ? '*' : origin);
      res.setHeader('vary', 'Origin');
      res.setHeader('access-control-allow-headers', 'content-type, x-glacier-api-key, x-data-api-key');
      res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
      res.setHeader('access-control-expose-headers', 'x-request-id, x-warpgate-pchain-height, x-warpgate-pchain-height-source');
    }
    if (req.method === 'OPTIONS') return void res.status(204).end();
    next();
  };
}

/** /metrics on the main port: unless metrics.port gives it its own listener, or publicMode keeps it off the public port. */
function metricsOnMainPort(config: Pick<Config, 'metrics' | 'publicMode'>): boolean {
  return config.metrics.port === null && !config.publicMode;
}

export function createApp(deps: AppDeps): express.Express {
  const { config, metrics, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // Behind load balancers (trustProxy) the client is who X-Forwarded-For names, as far as a
  // trusted hop says; otherwise the TCP peer, and a forged header changes nothing.
  app.set('trust proxy', config.trustProxy.length > 0 ? config.trustProxy : false);

  app.use(requestLogger(logger));
  app.use((_req, res, next) => {
    setSecurityHeaders(res);
    next();
  });
  if (config.allowedHosts.length > 0) app.use(hostCheck(config.allowedHosts));
  app.use((req, res, next) => {
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? (res.statusCode === 404 ? 'unmatched' : 'forwarded');
      metrics.countRequest(String(route), res.statusCode);
    });
    next();
  });
  if (config.cors.origins.length > 0) app.use(cors(config.cors.origins));

  const metricsHere = metricsOnMainPort(config);
  mountOpsRoutes(app, { metrics, readiness: deps.readiness, metricsHere, publicReadiness: config.publicMode });
  mountStatusRoutes(app, deps.status);
  // publicMode: the document does not point at the signers' door.
  mountOpenApiRoute(app, { version: PACKAGE_VERSION, statusPage: deps.status !== undefined, metrics: metricsHere, peerPath: config.publicMode ? undefined : config.peerPath });
  if (deps.relayer) {
    mountRelayerRoutes(app, { control: deps.relayer, token: config.relayer.manualRelayToken, publicMode: config.publicMode, bodyBytes: config.limits.bodyBytes, logger });
  }
  if (deps.aggregationApi !== false) mountAggregationRoutes(app, deps);
  if (deps.proxyRouter) app.use(deps.proxyRouter);

  app.use((req, res) => {
    res.status(404).json(GLACIER.errorBody(404, `no route for ${req.method} ${cutPeerText(req.path, MAX_QUOTED_CHARS)}`));
  });
  // Errors thrown before a route's own handler (body parsing: malformed JSON, 413).
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendError(res, dialectOfPath(req.path), err, req.log ?? logger);
  });
  return app;
}
