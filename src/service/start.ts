// One running service from a Config, built in dependency order: logger, metrics and the status
// model (what the parts report to), BLS pool, node client, validator sets and the peer admission
// and validator directory they feed, signer peers, the avalanchego peer transport, the routing
// over both, readiness, aggregator, forwarded read endpoints, then the HTTP app and server.
// close() is the graceful shutdown and takes the parts down in reverse: stop accepting, let
// in-flight aggregations finish up to the grace period, then close peers, upstream connections
// and workers.
import type { Server } from 'node:http';
import type { Server as NetServer } from 'node:net';
import type { Logger } from 'pino';
import { loadBackend } from '../bls/index.js';
import { Aggregator, type AggregatorOptions, type ValidatorSets } from '../aggregator/aggregator.js';
import { SignatureCache } from '../aggregator/signature-cache.js';
import type { VerificationStrategy } from '../aggregator/verification.js';
import { BlsPool } from '../bls-pool/pool.js';
import type { PChainClient } from '../node/pchain.js';
import type { PeerPool } from '../peers/pool.js';
import { createProxyRouter } from '../proxy/index.js';
import { redactConfig, type Config } from '../config/config.js';
import { parseCb58Id } from '../warp/cb58.js';
import { createApp } from '../server/app.js';
import { createMetricsApp } from '../server/metrics-app.js';
import { PACKAGE_VERSION } from '../util/package-info.js';
import { AnswerTracker } from './answer-tracker.js';
import type { L1MessageBuilder } from '../server/routes/aggregation.js';
import { createHttpServer, listen, stopListening } from './http-server.js';
import { createLogger } from './logger.js';
import { Metrics } from './metrics.js';
import { openDestinationEpochs } from './destinations.js';
import { connectNode, type NodeClient } from './node-client.js';
import { P2PTransport } from './p2p.js';
import { loadP2PIdentity } from './p2p-identity.js';
import { createPeerPool } from './peers.js';
import { Readiness } from './readiness.js';
import { SignerRouting } from './signer-routing.js';
import { StatusModel, type StatusTransport } from './status.js';
import { openSharedState } from './shared-state.js';
import { openValidatorSets, p2pEnabled } from './validator-sets.js';
import { RelayerMetrics } from './relayer-metrics.js';
import { lateControl, relayerConfigured, relayerKeys, relayerStatus, startRelayer, withRelayerReadiness, type RelayerParts, type RunningRelayerService } from './relayer.js';

export interface Service {
  url: string;
  port: number;
  server: Server;
  /** The WebSocket signer peers. */
  peers: PeerPool;
  /** The avalanchego peer transport; null when p2p.enabled is false or no node is configured. */
  p2p: P2PTransport | null;
  /** The port of the metrics listener (metrics.port); undefined when /metrics is on the main port or off. */
  metricsPort?: number;
  /** The relayer, when the config has relayer.routes. */
  relayer?: RunningRelayerService;
  /** Both transports as the aggregator sees them. */
  routing: SignerRouting;
  aggregator: Aggregator;
  pool: BlsPool;
  metrics: Metrics;
  logger: Logger;
  pchain: PChainClient | null;
  sets: ValidatorSets;
  close(): Promise<void>;
}

export interface ServiceOptions {
  logger?: Logger;
  /** How the aggregator checks collected signatures; its own (running sums) unless injected (the bench's baseline). */
  verification?: VerificationStrategy;
  /** Builds P-Chain L1 messages (GET …/aggregateSignatures/{txHash}, justification-only POSTs). */
  l1?: (node: NodeClient) => L1MessageBuilder;
  /** The aggregator's events, to a listener of the embedder's own, after the metrics and the status page have them. */
  events?: AggregatorEvents;
  /**
   * A listener already bound to config.host:config.port (http-server.ts reservePort), whose socket
   * the service takes over rather than binding the port itself: the devnet binds its service's
   * port before its validators start listening on ports the kernel picks.
   */
  listener?: NetServer;
  /** The relayer's parts (engine, EVM adapters, store): needed when the config has relayer.routes. */
  relayer?: RelayerParts;
  /** `warpgate relay`: the port serves the relayer (manual relay, message states, /health, /ready, /metrics, the status page), no aggregation API or forwarded endpoints. */
  relayOnly?: boolean;
}

type AggregatorEvents = NonNullable<AggregatorOptions['events']>;

/** Every event to each listener in turn: one handler object for the aggregator, whatever events its listeners know. */
function allOf(...listeners: AggregatorEvents[]): AggregatorEvents {
  const names = new Set(listeners.flatMap((l) => Object.keys(l))) as Set<keyof AggregatorEvents>;
  return Object.fromEntries(
    [...names].map((name) => [name, (...args: unknown[]) => listeners.forEach((l) => (l[name] as ((...a: unknown[]) => void) | undefined)?.(...args))]),
  ) as AggregatorEvents;
}

export async function startService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const logger = opts.logger ?? createLogger(config.logLevel, 1, config.logFormat);
  // Before anything starts: a delivery key that is not there ends the start (a ConfigError, exit 2).
  const keys = relayerKeys(config);
  if (relayerConfigured(config) && !opts.relayer) throw new Error('relayer.routes is set but this build was given no relayer parts');
  const relayerSlot = relayerConfigured(config) ? lateControl() : undefined;
  const metrics = new Metrics();
  const relayerMetrics = new RelayerMetrics(metrics.registry, config.relayer.lowBalanceGwei, logger.child({ component: 'relayer' }));
  metrics.readinessQuorumPercent.set(config.readiness.quorumPercentage);
  const status = new StatusModel({
    version: PACKAGE_VERSION,
    refreshMs: config.status.refreshMs,
    maxRecent: config.status.recentAggregations,
    validatorsPerSubnet: config.status.validatorsPerSubnet,
    trackedSubnets: config.readiness.subnets,
    quorumPercentage: config.readiness.quorumPercentage,
  });
  const answers = new AnswerTracker(config.status.trackedValidators);
  const bls = loadBackend(config.bls.backend, { onFallback: (reason) => logger.warn({ reason }, 'blst could not load; using the pure-JS BLS backend') });
  // Before anything starts: a p2p identity file that cannot be used ends the start (a ConfigError).
  const p2pIdentity = p2pEnabled(config) ? loadP2PIdentity(config.p2p, bls) : undefined;
  const pool = new BlsPool({ backend: bls.name, threads: config.workers.threads, maxQueue: config.workers.maxQueue, events: { onTask: metrics.blsTask } });
  await pool.warm();

  // Before the parts that use it; a Redis that cannot be used is logged, never a failed start.
  const shared = await openSharedState(config, metrics.registry, logger);
  // Readiness, built below, hears of every node call too: the status page judges the node by them.
  let readiness: Readiness | undefined;
  const node = connectNode(config, (e) => {
    metrics.nodeCall(e);
    readiness?.nodeCall(e);
  });
  const { sets, admission, directory, stopRefresh, subnets } = openValidatorSets(config, node?.pchain ?? null, bls, logger);
  const peers = createPeerPool(config, pool, admission, metrics.peerRefused, logger);
  const p2p =
    node && p2pIdentity
      ? new P2PTransport({
          p2p: config.p2p,
          trackedSubnets: subnets.map((s) => s.id),
          requestTimeoutMs: config.aggregation.requestTimeoutMs,
          info: node.info,
          nodeNetworkId: node.nodeNetworkId,
          directory,
          identity: p2pIdentity,
          bls,
          logger: logger.child({ component: 'p2p' }),
          events: { dialFailed: metrics.p2pDialFailed, dropped: metrics.p2pDroppedOne },
        })
      : null;
  const routing = new SignerRouting(peers, p2p, directory, logger.child({ component: 'p2p' }), metrics.routingEvents);
  readiness = new Readiness({
    node: node?.pchain ?? null,
    sets,
    peers: routing,
    // silent: avalanchego validators that drop requests without an answer, with the likely reason and the remedy.
    describePeers: () => ({ connected: routing.connectedCounts(), p2p: p2p ? p2p.stats() : 'disabled', ...(p2p ? { silent: routing.silent.list() } : {}) }),
    subnets,
    quorumPercentage: config.readiness.quorumPercentage,
    held: (id) => directory.heldSet(id),
    // Past two refreshes of readiness.subnets without a call, the status page asks the node itself.
    nodeFreshMs: 2 * config.peerAdmission.setRefreshMs,
    sharedState: shared ? () => shared.state.unavailableReason() : undefined,
  });
  const cache = new SignatureCache(config.signatureCache);
  const aggregator = new Aggregator({
    sets,
    epochs: openDestinationEpochs(config, node, metrics.nodeCall, logger),
    allowedSigningSubnets: config.aggregation.allowedSigningSubnets.map((id) => parseCb58Id(id, 'aggregation.allowedSigningSubnets')),
    peers: answers.observe(routing),
    pool,
    cache,
    shared: shared?.state,
    deadlineMs: config.aggregation.deadlineMs,
    requestTimeoutMs: config.aggregation.requestTimeoutMs,
    maxConcurrent: config.aggregation.maxConcurrent,
    minimizeSigners: config.aggregation.minimizeSigners,
    fanOut: { extraWeightPercent: config.aggregation.fanOutExtraPercent, hedgeDelayMs: config.aggregation.hedgeMs },
    verification: opts.verification,
    explainShortfall: (set, message) => routing.explainShortfall(set, message),
    events: allOf(metrics.aggregatorEvents, status.aggregatorEvents, ...(opts.events ? [opts.events] : [])),
  });
  const proxy = createProxyRouter({
    upstreams: {
      dataApi: config.upstreams.dataApi ?? undefined,
      metricsApi: config.upstreams.metricsApi ?? undefined,
      node: config.upstreams.node ?? undefined,
      apiKey: config.upstreams.apiKey ?? undefined,
    },
    publicMode: config.publicMode,
    rateLimit: config.rateLimit,
    budgets: shared?.state.budgets,
    timeoutMs: config.proxy.timeoutMs,
    maxResponseBytes: config.proxy.maxResponseBytes,
    cacheTtlMs: config.proxy.cacheTtlMs,
    logger: logger.child({ component: 'proxy' }),
    observe: metrics.proxyRequest,
  });
  metrics.readLiveFrom({
    workerQueue: () => pool.backlog,
    peersConnected: () => routing.connectedCounts(),
    aggregationsInFlight: () => aggregator.active,
    connectedStake: async () => (await readiness.connectedStake()).map((s) => ({ subnet: s.subnetId, percent: s.connectedPercent })),
  });
  const transports: StatusTransport[] = [{ name: 'websocket', connectedCount: () => peers.connectedKeys().length, isConnected: (v) => peers.isConnected(v.publicKeyHex) }];
  if (p2p) transports.push({ name: 'p2p', connectedCount: () => p2p.connectedCount(), isConnected: (v) => v.nodeIds.some((id) => p2p.isConnected(id)) });
  status.readLiveFrom({
    readiness: withRelayerReadiness(() => readiness.checkHeld(), relayerSlot?.control),
    heldSet: (id) => directory.heldSet(id),
    transports,
    answers,
    silent: () => routing.silent.list(),
    aggregationsInFlight: () => aggregator.active,
    cache: () => ({ ...cache.size, maxMessages: config.signatureCache.maxMessages, maxSignatures: config.signatureCache.maxSignatures }),
    workers: () => ({ threads: pool.threads, queued: pool.backlog, maxQueue: config.workers.maxQueue }),
    sharedState: shared ? () => shared.metrics.snapshot() : undefined,
    relayer: relayerSlot ? () => relayerStatus(relayerSlot.control, relayerMetrics) : undefined,
  });

  const app = createApp({
    config,
    aggregator,
    metrics,
    logger,
    readiness: withRelayerReadiness(() => readiness.check(), relayerSlot?.control),
    // publicMode serves what the public API server does: no page about this service's peers.
    status: config.publicMode ? undefined : { report: () => status.report(), refreshMs: config.status.refreshMs },
    proxyRouter: opts.relayOnly ? undefined : proxy.router,
    relayer: relayerSlot?.control,
    aggregationApi: !opts.relayOnly,
    l1: node && opts.l1 ? opts.l1(node) : undefined,
    nodeNetworkId: node?.nodeNetworkId,
    budgets: shared?.state.budgets,
  });
  const { server, gate } = createHttpServer(config, app);
  peers.attach(server, config.peerPath);
  // /metrics on its own listener (metrics.port): Prometheus scrapes a port the public never reaches.
  const metricsServer = config.metrics.port === null ? undefined : createHttpServer(config, createMetricsApp(metrics)).server;

  let port: number;
  let metricsPort: number | undefined;
  let relayer: RunningRelayerService | undefined;
  try {
    port = await listen(server, config, opts.listener);
    if (metricsServer) metricsPort = await listen(metricsServer, { host: config.metrics.host, port: config.metrics.port!, keys: ['metrics.port', 'metrics.host'] });
    peers.start();
    // In the background: it waits for the node's network ID, however long the node takes.
    p2p?.start();
    if (relayerSlot) {
      relayer = await startRelayer(config, {
        parts: opts.relayer!,
        keys,
        signing: { aggregate: (req, o) => aggregator.aggregate(req, o), signingSubnetFor: (id, r) => sets.signingSubnetFor(id, r), deadlineMs: config.aggregation.deadlineMs },
        metrics: relayerMetrics,
        logger,
      });
      relayerSlot.set(relayer.control);
    }
  } catch (err) {
    // A port in use must end the process, not leave worker threads and upstream sockets alive;
    // nothing may stay listening or running behind a failed start.
    if (server.listening) await stopListening(server);
    if (metricsServer?.listening) await stopListening(metricsServer);
    stopRefresh();
    routing.close();
    await Promise.allSettled([peers.close(), p2p?.close(), proxy.close(), pool.close(), shared?.state.close()]);
    throw err;
  }
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;
  // What a person starting it wants to see in one line; the whole configuration is at debug.
  logger.info(
    {
      url,
      address: `${config.host}:${port}`,
      version: PACKAGE_VERSION,
      node: redactConfig(config).upstreams.node,
      peers: config.peers.length,
      p2p: p2p ? p2p.nodeId : 'off',
      bls: bls.name,
      workers: pool.threads,
      ...(config.publicMode ? { publicMode: true } : {}),
      ...(metricsPort === undefined ? {} : { metricsAddress: `${config.metrics.host}:${metricsPort}` }),
      ...(config.redis.url ? { redis: 'on' } : {}),
    },
    'warpgate listening',
  );
  logger.debug({ config: redactConfig(config) }, 'configuration (secrets redacted)');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      logger.info({ inFlightRequests: gate.inFlight, inFlightAggregations: aggregator.active }, 'shutting down');
      // Stop accepting: no new connections, new requests on open ones get 503, idle ones close.
      gate.begin();
      const stopped = stopListening(server);
      server.closeIdleConnections();
      // The relayer takes no new messages and drains its deliveries while requests finish.
      const relayerStopped = relayer?.stop().catch((err: unknown) => logger.error({ err }, 'the relayer did not stop cleanly'));
      // In-flight requests (aggregations above all) finish and are flushed, up to the grace period.
      const drained = await gate.drained(config.shutdownGraceMs);
      if (!drained) logger.warn({ inFlightRequests: gate.inFlight, graceMs: config.shutdownGraceMs }, 'grace period over: cutting in-flight requests');
      server.closeAllConnections();
      await relayerStopped;
      relayerSlot?.set(undefined);
      stopRefresh();
      routing.close();
      if (metricsServer) metricsServer.closeAllConnections();
      await Promise.all([stopped, metricsServer ? stopListening(metricsServer) : undefined, peers.close(), p2p?.close(), proxy.close()]);
      await Promise.all([pool.close(), shared?.state.close()]);
      logger.info('stopped');
    })());

  return { url, port, ...(metricsPort === undefined ? {} : { metricsPort }), ...(relayer ? { relayer } : {}), server, peers, p2p, routing, aggregator, pool, metrics, logger, pchain: node?.pchain ?? null, sets, close };
}
