// Serving one JSON-RPC endpoint of the node: method, budget, content type, body, envelope, method
// table, public-mode refusals and parameter shape are checked here; only calls the node would
// accept go upstream, each as the exact bytes the client sent. Batches are split and their calls
// sent one by one, because avalanchego's own APIs do not accept batches.
import type { Request, Response } from 'express';
import { clientAddress, clientApiKey, upstreamHeaders } from './client-identity.js';
import type { JsonRpcId } from './error-shapes.js';
import { UpstreamError } from './errors.js';
import type { Gateway } from './gateway.js';
import type { MethodTable } from './node-methods.js';
import { PROXY_DEFAULTS } from './options.js';
import { RequestBodyError, readRequestBody } from './request-body.js';
import { faithfulTarget } from './request-target.js';
import { sendBody, sendEmpty, sendJson, sendText } from './respond.js';
import { parseRpcBody } from './rpc-body.js';
import { echoId, type RpcDialect, type RpcFailure } from './rpc-dialects.js';
import type { UpstreamResponse } from './upstream-client.js';
import { isRecord } from '../util/is-record.js';

export interface RpcEndpoint {
  /** Route label for metrics, e.g. `/ext/bc/P`. */
  label: string;
  dialect: RpcDialect;
  methods: MethodTable;
  /** The whole API is node-specific (health): every call is refused in public mode. */
  nodeSpecificApi?: string;
}

/** What to do with one call. `silent`: a notification, so nothing is answered for it. */
type Prepared =
  | { kind: 'local'; id: JsonRpcId; silent: boolean; failure: RpcFailure }
  | { kind: 'forward'; id: JsonRpcId; notification: boolean; deprecated: boolean };

/** Value set on forwarded responses that carry a deprecated method (RFC 9745 predecessor form). */
const DEPRECATION_HEADER_VALUE = 'true';

function prepare(gw: Gateway, ep: RpcEndpoint, value: unknown): Prepared {
  const d = ep.dialect;
  if (!isRecord(value)) return { kind: 'local', id: null, silent: false, failure: d.notAnObject };
  const id = echoId(value);
  const notification = d.isNotification(value);
  const local = (failure: RpcFailure, silent = notification): Prepared => ({ kind: 'local', id, silent, failure });
  const envelope = d.envelope(value);
  // gorilla answers nothing to an id-less call whatever is wrong with it; geth always answers a bad envelope.
  if (envelope) return local(envelope, d.name === 'avalanchego' && notification);
  const method = typeof value.method === 'string' ? value.method : '';
  const resolved = d.resolve(method, ep.methods);
  if (!resolved.ok) return local(resolved.failure);
  if (gw.publicMode && ep.nodeSpecificApi !== undefined) return local({ code: d.serverErrorCode, message: ep.nodeSpecificApi });
  if (gw.publicMode && resolved.info.nodeSpecific) {
    return local({ code: d.serverErrorCode, message: `${method} is node-specific and unavailable on this public server` });
  }
  const params = d.params(value.params, resolved.info);
  if (params) return local(params);
  return { kind: 'forward', id, notification, deprecated: resolved.info.deprecatedSince !== undefined };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

interface ForwardContext {
  gw: Gateway;
  target: string;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** One call upstream; a successful answer to a call with an id must be JSON. */
async function forwardCall(ctx: ForwardContext, body: Buffer, notification: boolean): Promise<UpstreamResponse> {
  const answer = await ctx.gw.client('node').request({ method: 'POST', target: ctx.target, headers: ctx.headers, body, signal: ctx.signal });
  if (answer.status >= 200 && answer.status < 300 && !notification && !isJson(answer.body.toString('utf8'))) {
    throw new UpstreamError('node', 'invalid', 'a successful JSON-RPC answer that is not JSON');
  }
  return answer;
}

/** Runs `fn` over 0..n-1 with at most `limit` running at once. */
async function eachLimited(n: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < n) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, lane));
}

export async function serveRpc(gw: Gateway, ep: RpcEndpoint, req: Request, res: Response): Promise<void> {
  const d = ep.dialect;
  let upstreamMs: number | undefined;
  const finish = (status: number): void => {
    gw.observe({ route: ep.label, status, upstream: upstreamMs === undefined ? undefined : 'node', upstreamMs });
  };
  const answerError = (httpStatus: number, id: JsonRpcId, failure: RpcFailure, headers: Record<string, string> = {}): void => {
    sendJson(res, httpStatus, d.errorResponse(id, failure), headers);
    finish(httpStatus);
  };

  if (req.method !== 'POST') {
    sendText(res, 405, d.methodNotAllowed(req.method), { allow: 'POST' });
    return finish(405);
  }
  const client = gw.budgetIdentity('node', clientApiKey(req), clientAddress(req));
  const rateLimited = (retryAfterSeconds: number): void =>
    answerError(429, null, { code: d.rateLimitCode, message: `rate limit exceeded; retry in ${retryAfterSeconds} s` }, { 'retry-after': String(retryAfterSeconds) });
  const budget = await gw.limits.take(client);
  if (!budget.ok) return rateLimited(budget.retryAfterSeconds);
  const contentTypeProblem = d.contentTypeProblem(req.headers['content-type']);
  if (contentTypeProblem !== null) {
    sendText(res, 415, contentTypeProblem);
    return finish(415);
  }

  let body: Buffer;
  try {
    body = await readRequestBody(req, PROXY_DEFAULTS.maxRequestBytes, gw.options.timeoutMs);
  } catch (err) {
    if (!(err instanceof RequestBodyError)) throw err;
    const headers: Record<string, string> = err.status === 415 ? { connection: 'close', 'accept-encoding': 'identity' } : { connection: 'close' };
    return answerError(err.status, null, { code: -32600, message: err.message }, headers);
  }
  const parsed = parseRpcBody(body);
  if (parsed.kind === 'unparseable') return answerError(200, null, d.parseError(parsed.detail));

  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const ctx: ForwardContext = {
    gw,
    target: faithfulTarget(req.url),
    headers: upstreamHeaders(req, gw.apiKeyFor('node', client.apiKey)),
    signal: abort.signal,
  };

  if (parsed.kind === 'single') {
    const p = prepare(gw, ep, parsed.value);
    if (p.kind === 'local') {
      if (p.silent) {
        sendEmpty(res, 200);
        return finish(200);
      }
      return answerError(200, p.id, p.failure);
    }
    try {
      const answer = await forwardCall(ctx, parsed.raw, p.notification);
      upstreamMs = answer.elapsedMs;
      const headers = p.deprecated ? { ...answer.headers, deprecation: DEPRECATION_HEADER_VALUE } : answer.headers;
      sendBody(res, answer.status, headers, answer.body);
      return finish(answer.status);
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      gw.upstreamFailed(ep.label, err);
      if (err.failure === 'aborted') return;
      return answerError(err.status, p.id, { code: d.serverErrorCode, message: err.message });
    }
  }

  const items = parsed.items;
  if (items.length === 0) return answerError(200, null, { code: -32600, message: 'empty batch' });
  if (items.length > PROXY_DEFAULTS.maxBatchSize) {
    return answerError(200, null, { code: -32600, message: `batch too large: at most ${PROXY_DEFAULTS.maxBatchSize} calls` });
  }
  // A batch costs one request per call.
  if (items.length > 1) {
    const extra = await gw.limits.take(client, items.length - 1);
    if (!extra.ok) return rateLimited(extra.retryAfterSeconds);
  }

  const prepared = items.map((item) => prepare(gw, ep, item.value));
  const texts: Array<string | null> = new Array<string | null>(items.length).fill(null);
  const failures: UpstreamError[] = [];
  let forwarded = 0;
  let deprecated = false;
  const started = performance.now();
  const errorText = (id: JsonRpcId, failure: RpcFailure): string => JSON.stringify(d.errorResponse(id, failure));

  await eachLimited(items.length, PROXY_DEFAULTS.batchConcurrency, async (i) => {
    const p = prepared[i];
    const item = items[i];
    if (!p || !item) return;
    if (p.kind === 'local') {
      texts[i] = p.silent ? null : errorText(p.id, p.failure);
      return;
    }
    forwarded++;
    if (p.deprecated) deprecated = true;
    try {
      const answer = await forwardCall(ctx, Buffer.from(item.raw, 'utf8'), p.notification);
      const text = answer.body.toString('utf8').trim();
      if (p.notification) texts[i] = null;
      else if (answer.status >= 200 && answer.status < 300) texts[i] = text;
      else if (isJson(text) && text.startsWith('{')) texts[i] = text;
      else texts[i] = errorText(p.id, { code: d.serverErrorCode, message: `the node upstream answered HTTP ${answer.status}` });
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      failures.push(err);
      texts[i] = p.notification ? null : errorText(p.id, { code: d.serverErrorCode, message: err.message });
    }
  });
  if (abort.signal.aborted) return;
  const first = failures[0];
  if (first) gw.upstreamFailed(ep.label, first);
  if (forwarded > failures.length) upstreamMs = performance.now() - started;
  // Every forwarded call failed the same way: the batch as a whole gets that status.
  const status = first && failures.length === forwarded && failures.every((f) => f.status === first.status) ? first.status : 200;
  const answered = texts.filter((t): t is string => t !== null);
  const headers: Record<string, string> = deprecated ? { deprecation: DEPRECATION_HEADER_VALUE } : {};
  if (answered.length === 0) sendEmpty(res, status, headers);
  else sendBody(res, status, { ...headers, 'content-type': 'application/json; charset=utf-8' }, `[${answered.join(',')}]`);
  finish(status);
}
