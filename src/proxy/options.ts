// ProxyOptions, their defaults, and the checks that run once when the router is created.
import { ProxyConfigError, type UpstreamName } from './errors.js';
import type { BudgetFactory } from '../util/rate-limit.js';

export interface ProxyLogger {
  info(o: object, m?: string): void;
  warn(o: object, m?: string): void;
}

/** One finished request, for metrics. `route` is the seed path pattern, e.g. `/v1/chains/{chainId}/transactions`. */
export interface ProxyObservation {
  route: string;
  status: number;
  upstream?: UpstreamName;
  upstreamMs?: number;
}

export interface ProxyOptions {
  upstreams: { dataApi?: string; metricsApi?: string; node?: string; apiKey?: string };
  /** Refuse node-specific methods and the health API, as the public API server does. Default false. */
  publicMode?: boolean;
  /** Per minute; undefined or 0 means no limit for that budget. */
  rateLimit?: { requestsPerMinute?: number; keyedRequestsPerMinute?: number };
  /** Where the rate-limit budgets are kept; default: in this process (util/rate-limit.ts). */
  budgets?: BudgetFactory;
  /** Deadline of one upstream exchange. Default 10 000 ms. */
  timeoutMs?: number;
  /** Largest upstream answer passed on. Default 10 MiB. */
  maxResponseBytes?: number;
  /** How long successful answers of cacheable GETs are reused; 0 turns caching off. Default 10 000 ms. */
  cacheTtlMs?: number;
  /** Cached answers kept at most. Default 1000 (and at most 64 MiB in total). */
  cacheMaxEntries?: number;
  logger?: ProxyLogger;
  /** Called once per request the router answers (metrics hook). */
  observe?: (e: ProxyObservation) => void;
}

export const PROXY_DEFAULTS = {
  timeoutMs: 10_000,
  maxResponseBytes: 10 * 1024 * 1024,
  cacheTtlMs: 10_000,
  cacheMaxEntries: 1000,
  /** Total bytes of cached answers. */
  cacheMaxBytes: 64 * 1024 * 1024,
  /** Largest JSON-RPC request body read from a client. */
  maxRequestBytes: 1024 * 1024,
  /** Calls in one JSON-RPC batch. */
  maxBatchSize: 100,
  /** Calls of one batch sent upstream at the same time. */
  batchConcurrency: 8,
} as const;

export interface ResolvedProxyOptions {
  upstreams: { dataApi?: string; metricsApi?: string; node?: string; apiKey?: string };
  publicMode: boolean;
  requestsPerMinute: number;
  keyedRequestsPerMinute: number;
  timeoutMs: number;
  maxResponseBytes: number;
  cacheTtlMs: number;
  cacheMaxEntries: number;
}

function count(option: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || !Number.isInteger(value) || value < min) {
    throw new ProxyConfigError(option, `must be an integer of at least ${min}, got ${value}`);
  }
  return value;
}

export function resolveProxyOptions(opts: ProxyOptions): ResolvedProxyOptions {
  const u = opts.upstreams ?? {};
  for (const name of ['dataApi', 'metricsApi', 'node', 'apiKey'] as const) {
    const v = u[name];
    if (v !== undefined && typeof v !== 'string') throw new ProxyConfigError(`upstreams.${name}`, 'must be a string');
  }
  const blank = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());
  return {
    upstreams: { dataApi: blank(u.dataApi), metricsApi: blank(u.metricsApi), node: blank(u.node), apiKey: blank(u.apiKey) },
    publicMode: opts.publicMode ?? false,
    requestsPerMinute: count('rateLimit.requestsPerMinute', opts.rateLimit?.requestsPerMinute, 0, 0),
    keyedRequestsPerMinute: count('rateLimit.keyedRequestsPerMinute', opts.rateLimit?.keyedRequestsPerMinute, 0, 0),
    timeoutMs: count('timeoutMs', opts.timeoutMs, PROXY_DEFAULTS.timeoutMs, 1),
    maxResponseBytes: count('maxResponseBytes', opts.maxResponseBytes, PROXY_DEFAULTS.maxResponseBytes, 1),
    cacheTtlMs: count('cacheTtlMs', opts.cacheTtlMs, PROXY_DEFAULTS.cacheTtlMs, 0),
    cacheMaxEntries: count('cacheMaxEntries', opts.cacheMaxEntries, PROXY_DEFAULTS.cacheMaxEntries, 0),
  };
}
