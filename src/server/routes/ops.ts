// What operators and load balancers ask: /health (the process answers), /ready (the node answers
// and enough stake is connected, decided by whoever wires the service) and /metrics (Prometheus).
import type { Express } from 'express';

/** What the HTTP layer records and exposes; the service's metrics registry provides it. */
export interface HttpMetrics {
  /** One answered request, by route pattern and status. */
  countRequest(route: string, status: number): void;
  /** The Prometheus exposition: its content type and text. */
  exposition(): Promise<{ contentType: string; text: string }>;
}

/** The readiness report /ready answers with: 200 when ready, else 503 with the reasons. */
export type ReadinessCheck = () => Promise<{ ready: boolean; reasons: string[]; subnets: unknown[] }>;

export function mountOpsRoutes(app: Express, deps: { metrics: HttpMetrics; readiness: ReadinessCheck }): void {
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get('/ready', async (_req, res) => {
    try {
      const r = await deps.readiness();
      res.status(r.ready ? 200 : 503).json(r);
    } catch (err) {
      res.status(503).json({ ready: false, reasons: [err instanceof Error ? err.message : String(err)], subnets: [] });
    }
  });

  app.get('/metrics', async (_req, res) => {
    const { contentType, text } = await deps.metrics.exposition();
    res.setHeader('content-type', contentType);
    res.send(text);
  });
}
