// Assembles one running service from a Config: BLS worker pool, P-Chain client and validator-set
// cache, signer peer pool, aggregator, forwarded read endpoints, metrics, and the HTTP server.
// close() is the graceful shutdown: stop accepting, let in-flight aggregations finish up to the
// grace period, then close peers, workers and upstream connections.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { loadBackend } from '../bls/index.js';
import { Aggregator, type ValidatorSets } from '../aggregator/aggregator.js';
import { SignatureCache } from '../aggregator/signature-cache.js';
import { BlsPool } from '../bls-pool/pool.js';
import type { VerificationStrategy } from '../aggregator/verification.js';
import { PChainClient } from '../node/pchain.js';
import { InfoClient, rememberNetworkId } from '../node/info.js';
import { JsonRpcTransport } from '../node/transport.js';
import { ValidatorSetCache } from '../validators/set-cache.js';
import { PeerPool } from '../peers/pool.js';
import { PEER_AUTH_DST } from '../peers/auth.js';
import { PeerAdmission } from '../peers/admission.js';
import { parseCb58Id } from '../warp/cb58.js';
import { bytesToHex } from '../warp/hex.js';
import { createProxyRouter } from '../proxy/index.js';
import type { Config } from '../config/config.js';
import { ConfigError, redactConfig } from '../config/config.js';
import { createApp } from './app.js';
import type { L1MessageBuilder } from './routes/aggregation.js';
import { HttpError } from './errors.js';
import { Metrics } from './metrics.js';
import { createLogger } from './logger.js';
import { Readiness } from './readiness.js';
import { ShutdownGate } from './shutdown-gate.js';
import { keepSubnetSetsCurrent, trackValidatorSets } from './peer-admission.js';

export interface Service {
  url: string;
  port: number;
  server: Server;
  peers: PeerPool;
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
  l1?: (deps: { pchain: PChainClient; nodeNetworkId: () => Promise<number> }) => L1MessageBuilder;
}

/** How often the server looks for requests past limits.headersTimeoutMs or limits.requestTimeoutMs. */
export function timeoutCheckIntervalMs(limits: Config['limits']): number {
  return Math.min(1000, Math.max(50, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 10)));
}

/**
 * A listen failure the configuration caused (a port in use or privileged, a host that is not an
 * address of this machine or does not resolve) as the ConfigError it is; anything else as is.
 */
function listenProblem(err: unknown, config: Config): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const at = `${config.host}:${config.port}`;
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError([`port: ${at} is already in use (EADDRINUSE)`]);
    case 'EACCES':
      return new ConfigError([`port: this process may not listen on ${at} (EACCES; ports below 1024 need privileges)`]);
    case 'EADDRNOTAVAIL':
      return new ConfigError([`host: '${config.host}' is not an address of this machine (EADDRNOTAVAIL)`]);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return new ConfigError([`host: '${config.host}' does not resolve to an address (${code})`]);
    default:
      return err;
  }
}

class NoNodeConfigured implements ValidatorSets {
  private fail(): never {
    throw new HttpError(503, 'upstreams.node is not configured: validator sets cannot be read from the P-Chain');
  }
  get(): Promise<never> {
    return Promise.reject(this.fail());
  }
  signingSubnetFor(): Promise<never> {
    return Promise.reject(this.fail());
  }
}

export async function startService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const bls = loadBackend(config.bls.backend, { onFallback: (reason) => logger.warn({ reason }, 'blst could not load; using the pure-JS BLS backend') });
  const pool = new BlsPool({ backend: bls.name, threads: config.workers.threads, maxQueue: config.workers.maxQueue });
  await pool.warm();

  let metrics: Metrics | undefined;
  // One transport to the node for all its APIs: one keep-alive pool, one timeout, one metric.
  const node = config.upstreams.node
    ? new JsonRpcTransport({
        nodeBaseUrl: config.upstreams.node,
        timeoutMs: config.validatorSets.nodeTimeoutMs,
        observe: (e) => {
          metrics?.pchainSeconds.observe({ method: e.method }, e.ms / 1000);
          if (e.error) metrics?.pchainErrors.inc({ method: e.method, kind: e.error });
        },
      })
    : null;
  const pchain = node ? new PChainClient(node) : null;
  // Asked once and shared by the network rule and the L1 message builder.
  const nodeNetworkId = node ? rememberNetworkId(new InfoClient(node)) : undefined;
  const readinessSubnets = config.readiness.subnets.map((name) => ({ name, id: parseCb58Id(name, 'readiness.subnets') }));
  // Signers that dial in are admitted only with a key of a validator set the service has read
  // (or an allowed one), checked before their proof is: every set read passes through here.
  const admission = new PeerAdmission({
    mode: config.peerAdmission.mode,
    allowedKeys: config.peerAdmission.allowedKeys,
    pinnedSubnets: readinessSubnets.map((s) => bytesToHex(s.id)),
    // As many as the set cache keeps: fixed heights and current sets.
    maxSets: 2 * config.validatorSets.maxEntries,
  });
  const sets: ValidatorSets = trackValidatorSets(
    pchain
      ? new ValidatorSetCache({ client: pchain, bls, currentTtlMs: config.validatorSets.currentTtlMs, currentMaxStaleMs: config.validatorSets.currentMaxStaleMs, maxEntries: config.validatorSets.maxEntries, maxLookback: config.validatorSets.maxLookback })
      : new NoNodeConfigured(),
    admission,
  );
  if (admission.mode === 'validators' && readinessSubnets.length === 0 && config.peerAdmission.allowedKeys.length === 0) {
    logger.warn(
      'peerAdmission.mode is validators but readiness.subnets and peerAdmission.allowedKeys are empty: a signer that dials in is admitted only once an aggregation has read its validator set',
    );
  }

  const peers = new PeerPool({
    dial: config.peers,
    requestTimeoutMs: config.aggregation.requestTimeoutMs,
    // Possession proofs are pure-JS pairings (tens of ms): off the event loop, and behind every
    // aggregation task in the worker pool.
    verifyPossession: (publicKey, message, proof) => pool.verifyPossession({ publicKey, message, proof, dst: PEER_AUTH_DST }),
    admitInbound: (key) => admission.check(key),
    maxInboundPeers: config.peerAdmission.maxInboundPeers,
    maxPendingHandshakes: config.peerAdmission.maxPendingHandshakes,
    maxPendingPerIp: config.peerAdmission.maxPendingPerIp,
    handshakesPerMinutePerIp: config.peerAdmission.handshakesPerMinutePerIp,
    helloTimeoutMs: config.peerAdmission.helloTimeoutMs,
    logger: logger.child({ component: 'peers' }),
  });
  const stopSetRefresh =
    pchain && admission.mode === 'validators'
      ? keepSubnetSetsCurrent({ sets, subnets: readinessSubnets, intervalMs: config.peerAdmission.setRefreshMs, logger: logger.child({ component: 'peers' }) })
      : () => {};

  const readinessCheck = new Readiness({
    node: pchain,
    sets,
    peers,
    subnets: config.readiness.subnets,
    quorumPercentage: config.readiness.quorumPercentage,
  });

  let aggregator: Aggregator | undefined;
  metrics = new Metrics({
    workerQueue: () => pool.backlog,
    peersConnected: () => peers.connectedKeys().length,
    aggregationsInFlight: () => aggregator?.active ?? 0,
    connectedStake: async () => (await readinessCheck.connectedStake()).map((s) => ({ subnet: s.subnetId, percent: s.connectedPercent })),
  });
  const m = metrics;
  peers.on('refused', (reason) => m.peerRefusals.inc({ reason }));
  aggregator = new Aggregator({
    sets,
    peers,
    pool,
    cache: new SignatureCache(config.signatureCache),
    deadlineMs: config.aggregation.deadlineMs,
    requestTimeoutMs: config.aggregation.requestTimeoutMs,
    maxConcurrent: config.aggregation.maxConcurrent,
    fanOut: { extraWeightPercent: config.aggregation.fanOutExtraPercent, hedgeDelayMs: config.aggregation.hedgeMs },
    verification: opts.verification,
    events: {
      onResponse: (result) => m.signatureResponses.inc({ result }),
      onCache: (hit) => m.signatureCache.inc({ result: hit ? 'hit' : 'miss' }),
      onAggregation: (e) => {
        m.aggregationSeconds.observe({ outcome: e.outcome }, e.ms / 1000);
        if (e.signedWeight !== undefined && e.totalWeight !== undefined && e.totalWeight > 0n) {
          m.signedWeightRatio.observe(Number(e.signedWeight) / Number(e.totalWeight));
          m.lastSignedWeight.set(Number(e.signedWeight));
          m.lastTotalWeight.set(Number(e.totalWeight));
        }
      },
    },
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
    timeoutMs: config.proxy.timeoutMs,
    maxResponseBytes: config.proxy.maxResponseBytes,
    cacheTtlMs: config.proxy.cacheTtlMs,
    logger: logger.child({ component: 'proxy' }),
    observe: (e) => {
      m.proxyRequests.inc({ route: e.route, status: String(e.status) });
      if (e.upstream && e.upstreamMs !== undefined) m.proxyUpstreamSeconds.observe({ upstream: e.upstream }, e.upstreamMs / 1000);
    },
  });

  const readiness = () => readinessCheck.check();

  const app = createApp({
    config,
    aggregator,
    metrics: m,
    logger,
    readiness,
    proxyRouter: proxy.router,
    l1: pchain && nodeNetworkId && opts.l1 ? opts.l1({ pchain, nodeNetworkId }) : undefined,
    nodeNetworkId,
  });
  const gate = new ShutdownGate();
  // Node checks the headers and request timeouts only every connectionsCheckingInterval (30 s by
  // default), so a slow client would be cut up to 30 s late. Checking every second (a tenth of a
  // shorter limit) keeps each limit within a second of what is configured.
  const server = createServer({ connectionsCheckingInterval: timeoutCheckIntervalMs(config.limits) }, gate.wrap(app));
  server.headersTimeout = config.limits.headersTimeoutMs;
  server.requestTimeout = config.limits.requestTimeoutMs;
  server.keepAliveTimeout = config.limits.keepAliveTimeoutMs;
  peers.attach(server, config.peerPath);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    // A port in use must end the process, not leave worker threads and upstream sockets alive.
    stopSetRefresh();
    await Promise.allSettled([peers.close(), proxy.close(), pool.close()]);
    throw listenProblem(err, config);
  }
  try {
    peers.start();
  } catch (err) {
    // Nothing may stay listening or running behind a failed start.
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.allSettled([peers.close(), proxy.close(), pool.close()]);
    throw err;
  }
  const port = (server.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, address: `${config.host}:${port}`, config: redactConfig(config), bls: bls.name }, 'warpgate listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      logger.info({ inFlightRequests: gate.inFlight, inFlightAggregations: aggregator.active }, 'shutting down');
      // Stop accepting: no new connections, new requests on open ones get 503, idle ones close.
      gate.begin();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // In-flight requests (aggregations above all) finish and are flushed, up to the grace period.
      const drained = await gate.drained(config.shutdownGraceMs);
      if (!drained) logger.warn({ inFlightRequests: gate.inFlight, graceMs: config.shutdownGraceMs }, 'grace period over: cutting in-flight requests');
      server.closeAllConnections();
      stopSetRefresh();
      await Promise.all([stopped, peers.close(), proxy.close()]);
      await pool.close();
      logger.info('stopped');
    })());

  return { url, port, server, peers, aggregator, pool, metrics: m, logger, pchain, sets, close };
}
