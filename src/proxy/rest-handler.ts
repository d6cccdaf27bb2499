// Serving one REST read endpoint: budget, checks, cache, one shared upstream call, answer.
import type { Request, Response } from 'express';
import { clientAddress, clientApiKey, keyFingerprint, upstreamHeaders } from './client-identity.js';
import { dataApiError, metricsApiError } from './error-shapes.js';
import { UpstreamError, type UpstreamName } from './errors.js';
import type { Gateway } from './gateway.js';
import { ParamReader } from './param-rules.js';
import type { PathMatch } from './path-pattern.js';
import { QueryParams, faithfulTarget, splitTarget } from './request-target.js';
import { sendBody, sendJson } from './respond.js';
import type { ErrorShape, RestRoute } from './rest-routes.js';
import type { UpstreamResponse } from './upstream-client.js';

/** The error body of `shape`; the Metrics API lists every violation, the Data API joins them. */
function shapedError(shape: ErrorShape, status: number, messages: string | string[]): object {
  if (shape === 'metricsApi') return metricsApiError(status, messages);
  return dataApiError(status, Array.isArray(messages) ? messages.join('; ') : messages);
}

// Upstream answers that say not to store them.
function storable(r: UpstreamResponse): boolean {
  return !/\b(no-store|no-cache|private)\b/i.test(r.headers['cache-control'] ?? '');
}

function isJson(body: Buffer): boolean {
  try {
    JSON.parse(body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/** Sends a GET upstream; a 2xx answer must be JSON (204/205 carry no body). */
async function fetchJson(gw: Gateway, upstream: UpstreamName, target: string, headers: Record<string, string>): Promise<UpstreamResponse> {
  const r = await gw.client(upstream).request({ method: 'GET', target, headers });
  if (r.status >= 200 && r.status < 300 && r.status !== 204 && r.status !== 205 && !isJson(r.body)) {
    throw new UpstreamError(upstream, 'invalid', 'a successful answer that is not JSON');
  }
  return r;
}

export async function serveRest(gw: Gateway, route: RestRoute, match: PathMatch, req: Request, res: Response): Promise<void> {
  const label = route.pattern.pattern;
  let upstreamMs: number | undefined;
  const finish = (status: number): void => {
    gw.observe({ route: label, status, upstream: upstreamMs === undefined ? undefined : route.upstream, upstreamMs });
  };
  const fail = (status: number, messages: string | string[], headers: Record<string, string> = {}): void => {
    sendJson(res, status, shapedError(route.shape, status, messages), headers);
    finish(status);
  };

  const apiKey = clientApiKey(req);
  const budget = await gw.limits.take(gw.budgetIdentity(route.upstream, apiKey, clientAddress(req)));
  if (!budget.ok) {
    return fail(429, `rate limit exceeded; retry in ${budget.retryAfterSeconds} s`, { 'retry-after': String(budget.retryAfterSeconds) });
  }
  if (route.nodeSpecific && gw.publicMode) {
    return fail(404, 'the health API is node-specific and unavailable on this public server');
  }
  if (!match.ok) return fail(400, `${match.param} is not valid percent-encoding`);

  const reader = new ParamReader(QueryParams.parse(splitTarget(req.url).rawQuery));
  route.check(match.params, reader);
  if (reader.violations.length > 0) return fail(400, reader.violations);

  const sentKey = gw.apiKeyFor(route.upstream, apiKey);
  const target = faithfulTarget(req.url);
  // Answers may depend on the credential (private chains, upstream budgets), so it is part of the key.
  const key = `${route.upstream} ${keyFingerprint(sentKey)} ${target}`;
  const cacheable = route.cacheable && gw.cache.enabled;
  if (cacheable) {
    const hit = gw.cache.get(key);
    if (hit) {
      sendBody(res, hit.status, hit.headers, hit.body);
      return finish(hit.status);
    }
  }

  try {
    const { promise } = gw.inflight.run(key, () => fetchJson(gw, route.upstream, target, upstreamHeaders(req, sentKey)));
    const answer = await promise;
    upstreamMs = answer.elapsedMs;
    if (cacheable && answer.status >= 200 && answer.status < 300 && storable(answer)) {
      gw.cache.set(key, { status: answer.status, headers: answer.headers, body: answer.body });
    }
    sendBody(res, answer.status, answer.headers, answer.body);
    finish(answer.status);
  } catch (err) {
    if (!(err instanceof UpstreamError)) throw err;
    gw.upstreamFailed(label, err);
    fail(err.status, err.message);
  }
}
