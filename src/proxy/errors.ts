// Typed errors of the proxy. Each carries what a user (or the operator reading a log) needs; none
// carries an upstream URL or an API key, because base URLs can embed credentials.

export type UpstreamName = 'dataApi' | 'metricsApi' | 'node';

/** How an upstream is named in messages to clients. */
const UPSTREAM_LABELS: Record<UpstreamName, string> = {
  dataApi: 'Data API',
  metricsApi: 'Metrics API',
  node: 'node',
};

/** A ProxyOptions value the proxy cannot run with; thrown by createProxyRouter. */
export class ProxyConfigError extends Error {
  override readonly name = 'ProxyConfigError';
  constructor(
    /** The option, e.g. `upstreams.dataApi`. */
    readonly option: string,
    readonly reason: string,
  ) {
    super(`${option}: ${reason}`);
  }
}

/**
 * Why a forwarded request produced no usable upstream answer.
 * - unconfigured: no base URL for this upstream (503)
 * - unreachable: connection refused, DNS failure, reset before an answer (503)
 * - busy: too many requests already in flight to this upstream (503)
 * - timeout: no complete answer within the deadline (504)
 * - invalid: oversize, truncated, a redirect, or not JSON where JSON is required (502)
 * - aborted: the client went away first (nothing is sent)
 */
export type UpstreamFailure = 'unconfigured' | 'unreachable' | 'busy' | 'timeout' | 'invalid' | 'aborted';

const STATUS: Record<UpstreamFailure, number> = {
  unconfigured: 503,
  unreachable: 503,
  busy: 503,
  timeout: 504,
  invalid: 502,
  aborted: 499,
};

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  constructor(
    readonly upstream: UpstreamName,
    readonly failure: UpstreamFailure,
    /** A short client-safe detail: an error code, a size, a reason. */
    readonly detail: string,
  ) {
    super(describe(upstream, failure, detail));
  }

  /** The HTTP status the gateway answers with. */
  get status(): number {
    return STATUS[this.failure];
  }
}

function describe(upstream: UpstreamName, failure: UpstreamFailure, detail: string): string {
  const label = UPSTREAM_LABELS[upstream];
  switch (failure) {
    case 'unconfigured':
      return `the ${label} upstream is not configured (set upstreams.${upstream})`;
    case 'unreachable':
      return `the ${label} upstream is unreachable (${detail})`;
    case 'busy':
      return `the ${label} upstream has too many requests in flight; retry shortly`;
    case 'timeout':
      return `the ${label} upstream did not answer within ${detail}`;
    case 'invalid':
      return `the ${label} upstream sent an invalid response: ${detail}`;
    case 'aborted':
      return `the request to the ${label} upstream was abandoned: ${detail}`;
  }
}
