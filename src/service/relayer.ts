// Wiring the relayer (docs/relayer.md) into a running service from the config's `relayer`
// section: its delivery keys (read before anything starts: a missing one is a ConfigError), one
// source and one destination per chain, the store (embedded, or Redis with redis.url), the route
// leases, SignMessage over the service's own aggregator (relayer-sign.ts), the metrics and the
// readiness reasons. The parts themselves (engine, EVM adapters, stores) come in as factories:
// the CLI passes the real ones, tests pass fakes of the ports.
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { RelayerStatus } from '../server/status/report.js';
import { loadRelayerKeys, type RelayerKey } from '../config/relayer-keys.js';
import type { RelayerOptions, RouteConfig } from '../relayer/options.js';
import type { Hex, MessageDestination, MessageSource, RelayerControl, RelayerStore, RouteLeases } from '../relayer/ports.js';
import { RelayerError } from '../relayer/errors.js';
import { RelayerMetrics, type RelayerEvents, type RelayerLeaseEvents } from './relayer-metrics.js';
import { createSignMessage, type SigningDeps } from './relayer-sign.js';

type RelayerConfig = Config['relayer'];
type RelayerChain = RelayerConfig['chains'][number];

type RunningRelayer = RelayerControl & { start(): Promise<void>; stop(): Promise<void> };

/** What a source is given besides its chain (relayer/evm createEvmSource). */
interface SourceOptions {
  catchUpBlocks: number;
  rpcConcurrency: number;
  logger: Logger;
}

/** What a destination is given besides its chain (relayer/evm createEvmDestination). Keys never logged. */
export interface DestinationOptions {
  keys: readonly RelayerKey[];
  /** relayer.rewardAddress; null: each delivering key's own address. */
  rewardAddress: Hex | null;
  maxFeePerGasWei: bigint;
  /** relayer.lowBalanceGwei: a delivery that finds a key short of it reports the key's balance. */
  lowBalanceGwei: bigint;
  receiptTimeoutMs: number;
  rpcConcurrency: number;
  /** Called with each key's balance as it is read (the low-balance metric and warning). */
  onBalance(address: Hex, balanceWei: bigint): void;
  logger: Logger;
}

/** A destination whose keys' balances can be read (the EVM one); the service polls them for the metrics. */
interface WithBalances {
  balances(signal?: AbortSignal): Promise<readonly { readonly address: Hex; readonly balance: bigint }[]>;
}

/** How often the delivery keys' balances are read for the metrics and the low-balance warning. */
const BALANCE_POLL_MS = 60_000;

/** The relayer's parts, by factory: the real ones in the CLI (cli/relayer-parts.ts), fakes in tests. */
export interface RelayerParts {
  createRelayer(options: RelayerOptions): RunningRelayer;
  createSource(chain: RelayerChain, options: SourceOptions): MessageSource;
  createDestination(chain: RelayerChain, options: DestinationOptions): MessageDestination;
  /** The embedded store at relayer.storePath, or with redis.url the Redis store (issue 38). */
  /**
   * Where the messages' states live and who may deliver a route: the embedded store at
   * relayer.storePath with leases always held, or with redis.url the Redis store and a lease per
   * route (docs/relayer.md, "Running a standby"). `close` releases the leases, then the store.
   */
  openState(config: Config, logger: Logger, events: RelayerLeaseEvents): Promise<RelayerState>;
}

export interface RelayerState {
  readonly store: RelayerStore;
  readonly leases: RouteLeases;
  close(): Promise<void>;
}

export interface RunningRelayerService {
  control: RelayerControl;
  metrics: RelayerMetrics;
  /** Stops taking messages, drains deliveries in flight, records what was submitted, closes the store. */
  stop(): Promise<void>;
}

const WEI_PER_GWEI = 1_000_000_000n;

/** Whether the config runs a relayer: a route to relay. */
export function relayerConfigured(config: Config): boolean {
  return config.relayer.routes.length > 0;
}

/** The routes as the engine takes them; a route's ID is `<source>-><destination>` (cb58 both). */
function relayerRoutes(relayer: RelayerConfig): RouteConfig[] {
  return relayer.routes.map((r) => ({
    id: `${r.source}->${r.destination}`,
    sourceBlockchainId: r.source,
    destinationBlockchainId: r.destination,
    allowedOriginSenders: r.allowedOriginSenders,
    allowedDestinationAddresses: r.allowedDestinations,
    maxRequiredGasLimit: BigInt(r.maxRequiredGasLimit),
    startHeight: r.startHeight,
  }));
}

/** Reads the keys now: call it before anything starts, so a key that is not there ends the start with exit 2. */
export function relayerKeys(config: Config, env: NodeJS.ProcessEnv = process.env): RelayerKey[] {
  return relayerConfigured(config) ? loadRelayerKeys(config.relayer, env) : [];
}

interface StartRelayerOptions {
  parts: RelayerParts;
  keys: readonly RelayerKey[];
  signing: Omit<SigningDeps, 'observe'>;
  /** Registered by the service whether or not a relayer runs, so a dashboard's queries always name known series. */
  metrics: RelayerMetrics;
  logger: Logger;
}

export async function startRelayer(config: Config, opts: StartRelayerOptions): Promise<RunningRelayerService> {
  const { parts, keys } = opts;
  const relayer = config.relayer;
  const logger = opts.logger.child({ component: 'relayer' });
  const { metrics } = opts;
  const routes = relayerRoutes(relayer);
  const chains = new Map(relayer.chains.map((c) => [c.blockchainId, c]));
  const used = (end: 'sourceBlockchainId' | 'destinationBlockchainId'): RelayerChain[] => [...new Set(routes.map((r) => r[end]))].map((id) => chains.get(id)!);

  const sources: Record<string, MessageSource> = Object.fromEntries(used('sourceBlockchainId').map((c) => [c.blockchainId, parts.createSource(c, { catchUpBlocks: relayer.catchUpBlocks, rpcConcurrency: relayer.rpcConcurrency, logger: logger.child({ chain: c.blockchainId }) })]));
  const destinations: Record<string, MessageDestination & Partial<WithBalances>> = Object.fromEntries(
    used('destinationBlockchainId').map((c) => [
      c.blockchainId,
      parts.createDestination(c, {
        keys,
        rewardAddress: relayer.rewardAddress,
        maxFeePerGasWei: BigInt(relayer.maxFeePerGasGwei) * WEI_PER_GWEI,
        lowBalanceGwei: BigInt(relayer.lowBalanceGwei),
        receiptTimeoutMs: relayer.receiptTimeoutMs,
        rpcConcurrency: relayer.rpcConcurrency,
        onBalance: (address, balanceWei) => metrics.events.onKeyBalance(c.blockchainId, address, balanceWei),
        logger: logger.child({ chain: c.blockchainId }),
      }),
    ]),
  );
  const state = await parts.openState(config, logger, metrics.leaseEvents);
  let running: RunningRelayer;
  try {
    running = parts.createRelayer({
      routes,
      sources,
      destinations,
      sign: createSignMessage({ ...opts.signing, observe: (route, ms, ok) => metrics.aggregation(route, ms, ok) }),
      store: state.store,
      leases: state.leases,
      limits: { maxInFlight: relayer.maxInFlight, maxBacklog: relayer.maxBacklog, catchUpRange: relayer.catchUpBlocks, pruneAfterMs: relayer.pruneAfterMs },
      logger,
      events: metrics.events,
    });
    metrics.readLiveFrom(() => running.routes());
    await running.start();
  } catch (err) {
    await state.close().catch(() => undefined);
    throw err;
  }
  const stopBalances = pollBalances(destinations, metrics, logger);
  logger.info({ routes: routes.map((r) => r.id), keys: keys.map((k) => k.address), store: config.redis.url ? 'redis' : relayer.storePath }, 'relayer started');

  let stopping: Promise<void> | undefined;
  return {
    control: running,
    metrics,
    stop: () =>
      (stopping ??= (async () => {
        stopBalances();
        try {
          await running.stop();
        } finally {
          await state.close();
        }
        logger.info('relayer stopped');
      })()),
  };
}

/**
 * Reads every destination's key balances now and every BALANCE_POLL_MS, for the balance gauges
 * and the low-balance warning (a failed read is logged at debug: the route's own problem shows in
 * /ready). Returns the function that stops it.
 */
function pollBalances(destinations: Record<string, MessageDestination & Partial<WithBalances>>, metrics: RelayerMetrics, logger: Logger): () => void {
  const controller = new AbortController();
  const readAll = (): void => {
    for (const [chain, destination] of Object.entries(destinations)) {
      if (!destination.balances) continue;
      destination.balances(controller.signal).then(
        (keys) => keys.forEach((k) => metrics.events.onKeyBalance(chain, k.address, k.balance)),
        (err: unknown) => logger.debug({ chain, err: String(err) }, 'relayer: key balances not read'),
      );
    }
  };
  readAll();
  const timer = setInterval(readAll, BALANCE_POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    controller.abort();
  };
}

/**
 * The service's readiness with the relayer's: not ready while a route does not run (an RPC that
 * does not answer, a chain not there yet), each reason named. The relayer signs through the
 * service's aggregator, so the node and the connected stake count as well.
 */
export function withRelayerReadiness<R extends { ready: boolean; reasons: string[] }>(check: () => Promise<R>, relayer: RelayerControl | undefined): () => Promise<R> {
  if (!relayer) return check;
  return async () => {
    const base = await check();
    const own = relayer.readiness();
    const routes = relayer.routes().map((r) => ({ id: r.id, checkpoint: r.checkpoint ?? null, head: r.head ?? null, held: r.held, ...(r.problem === undefined ? {} : { problem: r.problem }) }));
    return { ...base, ready: base.ready && own.ready, reasons: [...base.reasons, ...own.reasons.map((r) => `relayer: ${r}`)], relayer: { ready: own.ready, routes } };
  };
}

/**
 * A RelayerControl for the HTTP app before the relayer runs (it starts once the port is bound):
 * routes and readiness say it is starting, requests are refused as a stopping relayer would be.
 */
export function lateControl(): { control: RelayerControl; set(control: RelayerControl | undefined): void } {
  let current: RelayerControl | undefined;
  const notYet = (): never => {
    throw new RelayerError('stopping', 'the relayer is not running (starting or stopped); retry shortly');
  };
  return {
    set: (control) => void (current = control),
    control: {
      routes: () => current?.routes() ?? [],
      readiness: () => current?.readiness() ?? { ready: false, reasons: ['the relayer is starting'] },
      find: (id) => (current ? current.find(id) : Promise.resolve().then(notYet)),
      relayFromBlock: (request) => (current ? current.relayFromBlock(request) : Promise.resolve().then(notYet)),
      relayMessage: (request) => (current ? current.relayMessage(request) : Promise.resolve().then(notYet)),
    },
  };
}

/** The status page's relayer panel: the routes now, and the counts since the start. */
export function relayerStatus(control: RelayerControl, metrics: RelayerMetrics | undefined): RelayerStatus {
  const figures = metrics?.snapshot() ?? { delivered: 0, deliveredByOthers: 0, skipped: 0, parked: 0, retries: 0, takeovers: 0, inFlightAtTakeover: 0, lowBalanceKeys: [] };
  const routes = control.routes().map((r) => ({
    id: r.id,
    checkpoint: r.checkpoint ?? null,
    head: r.head ?? null,
    held: r.held,
    inFlight: r.inFlight,
    parked: r.parked,
    ...(r.problem === undefined ? {} : { problem: r.problem }),
  }));
  return { routes, ...figures };
}
