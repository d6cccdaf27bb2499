// What every route handler shares: the upstream clients, the client budgets, the response cache,
// the in-flight table, logging and the metrics hook. One per router; close() releases it all.
import { ClientLimits } from './client-limits.js';
import { InFlight } from './coalesce.js';
import { UpstreamError, type UpstreamName } from './errors.js';
import { PROXY_DEFAULTS, resolveProxyOptions, type ProxyLogger, type ProxyObservation, type ProxyOptions, type ResolvedProxyOptions } from './options.js';
import { ResponseCache } from './response-cache.js';
import { UpstreamClient, type UpstreamResponse } from './upstream-client.js';

const NO_LOG: ProxyLogger = { info: () => {}, warn: () => {} };

/** The upstreams an API key is for (x-glacier-api-key authenticates to the hosted Glacier APIs). */
const KEYED_UPSTREAMS: ReadonlySet<UpstreamName> = new Set(['dataApi', 'metricsApi']);

export class Gateway {
  readonly options: ResolvedProxyOptions;
  readonly limits: ClientLimits;
  readonly cache: ResponseCache;
  readonly inflight = new InFlight<UpstreamResponse>();
  readonly log: ProxyLogger;
  private readonly clients: Partial<Record<UpstreamName, UpstreamClient>> = {};
  private readonly observer: ((e: ProxyObservation) => void) | undefined;

  constructor(opts: ProxyOptions) {
    this.options = resolveProxyOptions(opts);
    const o = this.options;
    for (const name of ['dataApi', 'metricsApi', 'node'] as const) {
      const base = o.upstreams[name];
      if (base !== undefined) this.clients[name] = new UpstreamClient(name, base, { timeoutMs: o.timeoutMs, maxResponseBytes: o.maxResponseBytes });
    }
    this.limits = new ClientLimits({ requestsPerMinute: o.requestsPerMinute, keyedRequestsPerMinute: o.keyedRequestsPerMinute, budgets: opts.budgets });
    this.cache = new ResponseCache({ ttlMs: o.cacheTtlMs, maxEntries: o.cacheMaxEntries, maxBytes: PROXY_DEFAULTS.cacheMaxBytes });
    this.log = opts.logger ?? NO_LOG;
    this.observer = opts.observe;
  }

  get publicMode(): boolean {
    return this.options.publicMode;
  }

  /**
   * The API key to send to `upstream`: the client's own, else the configured one. Keys are Data
   * API / Metrics API credentials; the node is not what they are for, so it never receives one.
   */
  apiKeyFor(upstream: UpstreamName, clientKey: string | undefined): string | undefined {
    if (!KEYED_UPSTREAMS.has(upstream)) return undefined;
    return clientKey ?? this.options.upstreams.apiKey;
  }

  /**
   * Who a request counts against. A key buys the keyed budget only on an upstream that checks
   * it; on the node nobody does, so a made-up key per request would otherwise be a fresh budget.
   */
  budgetIdentity(upstream: UpstreamName, clientKey: string | undefined, ip: string): { apiKey: string | undefined; ip: string } {
    return { apiKey: KEYED_UPSTREAMS.has(upstream) ? clientKey : undefined, ip };
  }

  /** The client of an upstream; an unconfigured one is an UpstreamError (503). */
  client(name: UpstreamName): UpstreamClient {
    const c = this.clients[name];
    if (!c) throw new UpstreamError(name, 'unconfigured', '');
    return c;
  }

  observe(e: ProxyObservation): void {
    if (!this.observer) return;
    try {
      this.observer(e);
    } catch (err) {
      this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'proxy observe hook threw');
    }
  }

  /** Logs a failed upstream exchange: which upstream and route, why; never a body, URL or key. */
  upstreamFailed(route: string, err: UpstreamError): void {
    if (err.failure === 'aborted') return;
    this.log.warn({ route, upstream: err.upstream, failure: err.failure, detail: err.detail, status: err.status }, 'upstream request failed');
  }

  close(): void {
    for (const c of Object.values(this.clients)) c.close();
    this.cache.clear();
  }
}
