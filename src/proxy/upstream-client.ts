// One upstream (Data API, Metrics API or node): a keep-alive connection pool, a deadline per
// request, a cap on the answer's size and on requests in flight. Answers are read whole into
// memory (bounded) because the gateway must check them before passing them on.
import http from 'node:http';
import https from 'node:https';
import { ProxyConfigError, UpstreamError, type UpstreamName } from './errors.js';
import { BodyCap, declaredOver } from '../util/read-body.js';

interface UpstreamClientOptions {
  /** Deadline for the whole exchange: connect, send, complete answer. */
  timeoutMs: number;
  /** Largest answer body accepted; larger is an invalid response (502). */
  maxResponseBytes: number;
  /** Requests in flight (including those waiting for a pooled socket); more is refused (503). */
  maxInFlight?: number;
  /** Connections kept to the upstream host. */
  maxSockets?: number;
}

interface UpstreamRequest {
  method: 'GET' | 'POST';
  /** Path and query, relative to the base URL, already safe to put on the request line. */
  target: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Aborts the exchange (the client went away); the promise then rejects with `aborted`. */
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  /** Only the headers a client may see (see PASSED_RESPONSE_HEADERS), lower-case names. */
  headers: Record<string, string>;
  body: Buffer;
  elapsedMs: number;
}

/**
 * Response headers passed on to clients. Everything else (hop-by-hop headers, cookies, length and
 * encoding, which the gateway sets itself) stays behind.
 */
const PASSED_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'cache-control',
  'etag',
  'last-modified',
  'expires',
  'retry-after',
  'deprecation',
  'sunset',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
]);

/** A reset on a pooled socket the server had already closed: safe to send once more. */
class StaleSocketReset extends Error {}

export class UpstreamClient {
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly hostname: string;
  private readonly port: number | undefined;
  private readonly basePath: string;
  private readonly auth: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxInFlight: number;
  private readonly active = new Set<http.ClientRequest>();
  private inFlight = 0;
  private closed = false;

  constructor(
    readonly name: UpstreamName,
    baseUrl: string,
    opts: UpstreamClientOptions,
  ) {
    const option = `upstreams.${name}`;
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new ProxyConfigError(option, 'is not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProxyConfigError(option, 'must be an http: or https: URL');
    if (url.search !== '' || url.hash !== '') throw new ProxyConfigError(option, 'must not carry a query or a fragment');
    this.transport = url.protocol === 'https:' ? https : http;
    const maxSockets = opts.maxSockets ?? 64;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets, maxFreeSockets: Math.min(16, maxSockets), scheduling: 'lifo' });
    this.hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    this.port = url.port === '' ? undefined : Number(url.port);
    // The request target always starts with '/', so a base path keeps no trailing slash.
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.auth = url.username === '' ? undefined : `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
    this.timeoutMs = opts.timeoutMs;
    this.maxResponseBytes = opts.maxResponseBytes;
    this.maxInFlight = opts.maxInFlight ?? 1024;
  }

  async request(req: UpstreamRequest): Promise<UpstreamResponse> {
    if (this.closed) throw new UpstreamError(this.name, 'unreachable', 'the gateway is shutting down');
    if (this.inFlight >= this.maxInFlight) throw new UpstreamError(this.name, 'busy', String(this.inFlight));
    this.inFlight++;
    const deadline = Date.now() + this.timeoutMs;
    try {
      try {
        return await this.attempt(req, deadline);
      } catch (err) {
        // Every request the proxy sends is a read, so repeating it after a stale pooled socket is safe.
        if (err instanceof StaleSocketReset) return await this.attempt(req, deadline);
        throw err;
      }
    } finally {
      this.inFlight--;
    }
  }

  /** Drops pooled connections and fails what is in flight. */
  close(): void {
    this.closed = true;
    for (const r of this.active) r.destroy(new Error('the gateway is shutting down'));
    this.active.clear();
    this.agent.destroy();
  }

  private attempt(r: UpstreamRequest, deadline: number): Promise<UpstreamResponse> {
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const started = performance.now();
      const headers: Record<string, string> = { ...r.headers, 'accept-encoding': 'identity' };
      if (r.body !== undefined) headers['content-length'] = String(r.body.byteLength);
      const req = this.transport.request({
        agent: this.agent,
        hostname: this.hostname,
        port: this.port,
        path: this.basePath + r.target,
        method: r.method,
        headers,
        auth: this.auth,
      });
      this.active.add(req);
      let settled = false;
      let answered = false;

      const settle = (err: Error | null, value?: UpstreamResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        r.signal?.removeEventListener('abort', onAbort);
        this.active.delete(req);
        if (err) {
          req.destroy();
          reject(err);
        } else if (value) {
          resolve(value);
        }
      };
      const invalid = (detail: string): void => settle(new UpstreamError(this.name, 'invalid', detail));
      const onAbort = (): void => settle(new UpstreamError(this.name, 'aborted', 'the client closed the connection'));

      const timer = setTimeout(() => settle(new UpstreamError(this.name, 'timeout', `${this.timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
      if (r.signal) {
        if (r.signal.aborted) return onAbort();
        r.signal.addEventListener('abort', onAbort, { once: true });
      }

      req.on('error', (err: NodeJS.ErrnoException) => {
        if (answered || settled) return; // the response's own handlers decide
        if (req.reusedSocket && err.code === 'ECONNRESET') return settle(new StaleSocketReset());
        settle(new UpstreamError(this.name, 'unreachable', err.code ?? err.message));
      });

      req.on('response', (res) => {
        answered = true;
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          return invalid(`a redirect (HTTP ${status})`);
        }
        if (declaredOver(res.headers['content-length'], this.maxResponseBytes)) {
          res.resume();
          return invalid(`larger than ${this.maxResponseBytes} bytes`);
        }
        const body = new BodyCap(this.maxResponseBytes);
        res.on('data', (chunk: Buffer) => {
          if (!body.add(chunk)) invalid(`larger than ${this.maxResponseBytes} bytes`);
        });
        res.on('error', () => invalid('truncated (the connection closed mid-answer)'));
        res.on('end', () => {
          if (!res.complete) return invalid('truncated (the connection closed mid-answer)');
          settle(null, {
            status,
            headers: pickHeaders(res.headers),
            body: body.bytes(),
            elapsedMs: performance.now() - started,
          });
        });
        res.on('close', () => invalid('truncated (the connection closed mid-answer)'));
      });

      req.end(r.body === undefined ? undefined : Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
    });
  }
}

function pickHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || !PASSED_RESPONSE_HEADERS.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
