// Prometheus metrics (prom-client), one registry per service instance so tests can run several.
// Counters and histograms are recorded as events happen: the parts of the service report to the
// adapters below (nodeCall, peerRefused, aggregatorEvents, proxyRequest). Gauges that describe
// the present (peers, connected stake, queue depth, in-flight work) read the parts given to
// readLiveFrom at scrape time, so they are never stale. Event-loop lag and the process figures
// come from prom-client's default metrics under the warpgate_ prefix
// (warpgate_nodejs_eventloop_lag_seconds and friends).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { AggregatorOptions } from '../aggregator/aggregator.js';
import type { TaskTiming } from '../bls-pool/pool.js';
import type { NodeCallEvent } from '../node/transport.js';
import type { ProxyObservation } from '../proxy/index.js';
import type { HttpMetrics } from '../server/routes/ops.js';
import type { RoutingEvents } from './signer-routing.js';

/** The live state the gauges read at every scrape. */
interface LiveSources {
  workerQueue: () => number;
  /** Validators connected, per transport: WebSocket signer peers and avalanchego peers (p2p). */
  peersConnected: () => { ws: number; p2p: number };
  aggregationsInFlight: () => number;
  /** Connected stake of each subnet readiness checks (see readiness.ts). */
  connectedStake: () => Promise<{ subnet: string; percent: number }[]>;
}

export class Metrics implements HttpMetrics {
  readonly registry = new Registry();
  readonly aggregationSeconds: Histogram<'outcome'>;
  readonly signedWeightRatio: Histogram<string>;
  readonly lastSignedWeight: Gauge<string>;
  readonly lastTotalWeight: Gauge<string>;
  readonly peersConnected: Gauge<'transport'>;
  readonly peerRefusals: Counter<'reason'>;
  readonly peerRequests: Counter<'transport' | 'outcome'>;
  readonly p2pAppErrors: Counter<'code'>;
  readonly p2pDialFailures: Counter<'kind'>;
  readonly p2pDropped: Counter<'kind'>;
  readonly connectedStakePercent: Gauge<'subnet'>;
  /** readiness.quorumPercentage, so a dashboard draws connected stake against it. */
  readonly readinessQuorumPercent: Gauge<string>;
  readonly signatureResponses: Counter<'result'>;
  readonly heightSources: Counter<'source'>;
  readonly messageSigners: Histogram<string>;
  readonly signersLeftOut: Counter<string>;
  readonly subsetCheckSeconds: Histogram<string>;
  readonly blsTaskJobs: Histogram<'kind'>;
  readonly signatureCache: Counter<'result'>;
  readonly pchainSeconds: Histogram<'method'>;
  readonly pchainErrors: Counter<'method' | 'kind'>;
  readonly proxyRequests: Counter<'route' | 'status'>;
  readonly proxyUpstreamSeconds: Histogram<'upstream'>;
  readonly workerQueueDepth: Gauge<string>;
  readonly aggregationsInFlight: Gauge<string>;
  readonly httpRequests: Counter<'route' | 'status'>;
  /** Until readLiveFrom is called (the parts are built after the metrics they report to), the live gauges read 0. */
  private live: LiveSources | undefined;

  constructor() {
    const registers = [this.registry];
    // prom-client calls collect() with the metric as `this`.
    const metrics = this;
    const liveGauge = (name: string, help: string, read: (live: LiveSources) => number): Gauge<string> =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          if (metrics.live) this.set(read(metrics.live));
        },
      });
    collectDefaultMetrics({ register: this.registry, prefix: 'warpgate_', eventLoopMonitoringPrecision: 10 });
    this.aggregationSeconds = new Histogram({
      name: 'warpgate_aggregation_seconds',
      help: 'Time from request to result of one aggregation, by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.signedWeightRatio = new Histogram({
      name: 'warpgate_signed_weight_ratio',
      help: 'Signed weight / total weight of successful aggregations',
      buckets: [0.5, 0.6, 0.67, 0.7, 0.75, 0.8, 0.9, 0.95, 1],
      registers,
    });
    this.lastSignedWeight = new Gauge({ name: 'warpgate_last_signed_weight', help: 'Signed weight of the last successful aggregation', registers });
    this.lastTotalWeight = new Gauge({ name: 'warpgate_last_total_weight', help: 'Total weight of the last successful aggregation', registers });
    this.peersConnected = new Gauge({
      name: 'warpgate_peers_connected',
      help: 'Validators connected, by transport: ws (signer peers, authenticated) and p2p (avalanchego peers, Handshake done)',
      labelNames: ['transport'],
      registers,
      collect() {
        const counts = metrics.live?.peersConnected() ?? { ws: 0, p2p: 0 };
        this.set({ transport: 'ws' }, counts.ws);
        this.set({ transport: 'p2p' }, counts.p2p);
      },
    });
    this.peerRequests = new Counter({
      name: 'warpgate_peer_requests_total',
      help: 'Signature requests to validators by transport and outcome (signature, refused, timeout, cancelled, failed)',
      labelNames: ['transport', 'outcome'],
      registers,
    });
    this.p2pAppErrors = new Counter({
      name: 'warpgate_p2p_app_errors_total',
      help: 'AppErrors avalanchego validators answered signature requests with, by code (unexpected, unregistered-handler, not-validator, throttled, pchain-1 … pchain-17, evm-1 … evm-4, other)',
      labelNames: ['code'],
      registers,
    });
    this.p2pDialFailures = new Counter({ name: 'warpgate_p2p_dial_failures_total', help: 'Failed dials to avalanchego validators by kind', labelNames: ['kind'], registers });
    this.p2pDropped = new Counter({
      name: 'warpgate_p2p_dropped_total',
      help: 'What slow or moved avalanchego nodes did, dropped without a penalty, by kind (late-answer, write-backlog, surplus-pong, stale-address)',
      labelNames: ['kind'],
      registers,
    });
    this.peerRefusals = new Counter({
      name: 'warpgate_peer_connections_refused_total',
      help: 'Connections that dialed in on the peer path and were refused before authenticating, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.connectedStakePercent = new Gauge({
      name: 'warpgate_connected_stake_percent',
      help: 'Weight of validators with a connected signer peer, as a percentage of total weight, per subnet in readiness.subnets',
      labelNames: ['subnet'],
      registers,
      async collect() {
        if (!metrics.live) return;
        const stakes = await metrics.live.connectedStake();
        this.reset();
        for (const s of stakes) this.set({ subnet: s.subnet }, s.percent);
      },
    });
    this.readinessQuorumPercent = new Gauge({ name: 'warpgate_readiness_quorum_percent', help: 'The connected stake /ready requires of each subnet in readiness.subnets (readiness.quorumPercentage)', registers });
    this.heightSources = new Counter({
      name: 'warpgate_pchain_height_source_total',
      help: 'Aggregations by where the P-Chain height they signed at came from: explicit (the client), epoch (the destination chain), proposed (platform.getProposedHeight)',
      labelNames: ['source'],
      registers,
    });
    this.messageSigners = new Histogram({
      name: 'warpgate_message_signers',
      help: 'Signers in each signed message (the destination pays gas per signer)',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 350, 500, 750, 1000, 2000, 5000],
      registers,
    });
    this.signersLeftOut = new Counter({
      name: 'warpgate_signers_left_out_total',
      help: 'Signatures that arrived and decoded but were left out of the message as redundant, unchecked (aggregation.minimizeSigners)',
      registers,
    });
    this.subsetCheckSeconds = new Histogram({
      name: 'warpgate_subset_check_seconds',
      help: 'Wall time of the check of the fewest signers\' aggregate (instead of every signature ready), waiting for a worker thread and the checks made with it included; in the fold completing the target, from the start of its task\'s checks; per aggregation that needed it',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers,
    });
    this.blsTaskJobs = new Histogram({
      name: 'warpgate_bls_task_jobs',
      help: 'Jobs per BLS worker task by kind: folds, and final checks (foldAndCheck), of concurrent aggregations share a task while every thread is busy',
      labelNames: ['kind'],
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    });
    this.signatureResponses = new Counter({ name: 'warpgate_signature_responses_total', help: 'Signature responses from peers by result', labelNames: ['result'], registers });
    this.signatureCache = new Counter({ name: 'warpgate_signature_cache_total', help: 'Signature cache lookups by result (hit: at least one signature cached)', labelNames: ['result'], registers });
    this.pchainSeconds = new Histogram({ name: 'warpgate_pchain_call_seconds', help: 'P-Chain JSON-RPC call latency by method', labelNames: ['method'], buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers });
    this.pchainErrors = new Counter({ name: 'warpgate_pchain_call_errors_total', help: 'Failed P-Chain calls by method and kind', labelNames: ['method', 'kind'], registers });
    this.proxyRequests = new Counter({ name: 'warpgate_proxy_requests_total', help: 'Forwarded read requests by route and status', labelNames: ['route', 'status'], registers });
    this.proxyUpstreamSeconds = new Histogram({ name: 'warpgate_proxy_upstream_seconds', help: 'Upstream latency of forwarded requests', labelNames: ['upstream'], buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers });
    this.workerQueueDepth = liveGauge('warpgate_worker_queue_depth', 'BLS tasks waiting for a worker thread', (live) => live.workerQueue());
    this.aggregationsInFlight = liveGauge('warpgate_aggregations_in_flight', 'Aggregations under way', (live) => live.aggregationsInFlight());
    this.httpRequests = new Counter({ name: 'warpgate_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['route', 'status'], registers });
  }

  /** The parts the live gauges read from now on. */
  readLiveFrom(sources: LiveSources): void {
    this.live = sources;
  }

  /** One call to the node (the JSON-RPC transport's observer). */
  readonly nodeCall = (e: NodeCallEvent): void => {
    this.pchainSeconds.observe({ method: e.method }, e.ms / 1000);
    if (e.error) this.pchainErrors.inc({ method: e.method, kind: e.error });
  };

  /** A connection that dialed in on the peer path was refused. */
  readonly peerRefused = (reason: string): void => {
    this.peerRefusals.inc({ reason });
  };

  /** What the signer routing reports: each request's transport and outcome, and AppError codes. */
  readonly routingEvents: Required<RoutingEvents> = {
    request: (transport, outcome) => void this.peerRequests.inc({ transport, outcome }),
    appError: (code) => void this.p2pAppErrors.inc({ code }),
  };

  /** A dial to an avalanchego validator failed. */
  readonly p2pDialFailed = (kind: string): void => {
    this.p2pDialFailures.inc({ kind });
  };

  /** Something an honest slow node did was dropped (no penalty). */
  readonly p2pDroppedOne = (kind: string): void => {
    this.p2pDropped.inc({ kind });
  };

  /** What the aggregator reports: answers from peers, cache lookups, finished aggregations. */
  readonly aggregatorEvents: NonNullable<AggregatorOptions['events']> = {
    onHeight: (source) => this.heightSources.inc({ source }),
    onResponse: (result) => this.signatureResponses.inc({ result }),
    onCache: (hit) => this.signatureCache.inc({ result: hit ? 'hit' : 'miss' }),
    onAggregation: (e) => {
      this.aggregationSeconds.observe({ outcome: e.outcome }, e.ms / 1000);
      if (e.signers !== undefined) this.messageSigners.observe(e.signers);
      if (e.signaturesLeftOut) this.signersLeftOut.inc(e.signaturesLeftOut);
      if (e.subsetCheckMs) this.subsetCheckSeconds.observe(e.subsetCheckMs / 1000);
      if (e.outcome === 'success' && e.signedWeight !== undefined && e.totalWeight !== undefined && e.totalWeight > 0n) {
        this.signedWeightRatio.observe(Number(e.signedWeight) / Number(e.totalWeight));
        this.lastSignedWeight.set(Number(e.signedWeight));
        this.lastTotalWeight.set(Number(e.totalWeight));
      }
    },
  };

  /** One task a BLS worker thread ran (the pool's observer). */
  readonly blsTask = (t: TaskTiming): void => {
    this.blsTaskJobs.observe({ kind: t.kind }, t.jobs);
  };

  /** One forwarded read request (the proxy's observer). */
  readonly proxyRequest = (e: ProxyObservation): void => {
    this.proxyRequests.inc({ route: e.route, status: String(e.status) });
    if (e.upstream && e.upstreamMs !== undefined) this.proxyUpstreamSeconds.observe({ upstream: e.upstream }, e.upstreamMs / 1000);
  };

  countRequest(route: string, status: number): void {
    this.httpRequests.inc({ route, status: String(status) });
  }

  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
