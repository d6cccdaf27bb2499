// What operators and load balancers ask: /health (the process answers), /ready (the node answers
// and enough stake is connected, decided by whoever wires the service) and /metrics (Prometheus;
// on the main port, or on its own listener: metrics-app.ts).
import type { Express, Request, Response } from 'express';

/** What the HTTP layer records and exposes; the service's metrics registry provides it. */
export interface HttpMetrics {
  /** One answered request, by route pattern and status. */
  countRequest(route: string, status: number): void;
  /** The Prometheus exposition: its content type and text. */
  exposition(): Promise<{ contentType: string; text: string }>;
}

/** The readiness report /ready answers with: 200 when ready, else 503 with the reasons. */
export type ReadinessCheck = () => Promise<{ ready: boolean; reasons: string[]; subnets: unknown[] }>;

interface OpsOptions {
  metrics: HttpMetrics;
  readiness: ReadinessCheck;
  /** Whether /metrics is served here (not when metrics.port gives it its own listener, nor in publicMode without one). */
  metricsHere: boolean;
  /** publicMode: /ready says ready or not, and withholds the reasons and stakes (node addresses, stake connected). */
  publicReadiness: boolean;
}

export function mountOpsRoutes(app: Express, deps: OpsOptions): void {
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/ready', async (_req, res) => {
    let r: Awaited<ReturnType<ReadinessCheck>>;
    try {
      r = await deps.readiness();
    } catch (err) {
      r = { ready: false, reasons: [err instanceof Error ? err.message : String(err)], subnets: [] };
    }
    if (deps.publicReadiness) r = { ready: r.ready, reasons: r.ready ? [] : ['not ready (publicMode withholds the reasons; see the log and /metrics)'], subnets: [] };
    res.status(r.ready ? 200 : 503).json(r);
  });

  if (deps.metricsHere) app.get('/metrics', metricsHandler(deps.metrics));
}

/** GET /metrics: the Prometheus exposition (on the main app or the metrics listener). */
export function metricsHandler(metrics: HttpMetrics): (req: Request, res: Response) => Promise<void> {
  return async (_req, res) => {
    const { contentType, text } = await metrics.exposition();
    res.setHeader('content-type', contentType);
    res.send(text);
  };
}
