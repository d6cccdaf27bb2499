// The metrics listener's app (metrics.port): GET /metrics and nothing else, so Prometheus can
// scrape a port the public never reaches (metrics.host defaults to loopback) while the main port
// serves the public (publicMode serves no /metrics there).
import express from 'express';
import { GLACIER } from './dialects.js';
import { setSecurityHeaders } from './edge.js';
import { metricsHandler, type HttpMetrics } from './routes/ops.js';

export function createMetricsApp(metrics: HttpMetrics): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use((_req, res, next) => {
    setSecurityHeaders(res);
    next();
  });
  app.get('/metrics', metricsHandler(metrics));
  app.use((_req, res) => {
    res.status(404).json(GLACIER.errorBody(404, 'this listener serves GET /metrics only'));
  });
  return app;
}
