// The status page for operators: GET /status (the page), GET /status.json (what it draws, for any
// other client too) and GET / (a redirect to the page). The report comes from whoever wires the
// service; without one (publicMode) none of these routes exists and they answer 404 like any
// unknown path.
import type { Express } from 'express';
import { GLACIER } from '../dialects.js';
import { STATUS_PAGE_CSP, statusPage } from '../status/page.js';
import type { StatusReport } from '../status/report.js';

export interface StatusSource {
  report(): Promise<StatusReport>;
  /** How often the page asks again. */
  refreshMs: number;
}

export function mountStatusRoutes(app: Express, status: StatusSource | undefined): void {
  if (!status) return;
  const page = statusPage(status.refreshMs);

  app.get('/', (_req, res) => {
    res.redirect(302, '/status');
  });

  app.get('/status', (_req, res) => {
    res.setHeader('content-security-policy', STATUS_PAGE_CSP);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(page);
  });

  app.get('/status.json', async (_req, res) => {
    res.setHeader('cache-control', 'no-store');
    try {
      res.json(await status.report());
    } catch (err) {
      res.status(503).json(GLACIER.errorBody(503, `status unavailable: ${err instanceof Error ? err.message : String(err)}`));
    }
  });
}
