// What createRelayer takes: routes, the chains' ports, signing, the store and leases, caps,
// a logger and the events. Defaults live here so the config schema (surface) and the engine agree.
import type { Backoff } from './backoff.js';
import { RelayerError } from './errors.js';
import type { RelayerEvents } from './events.js';
import type { Hex, MessageDestination, MessageSource, RelayerStore, RouteLeases, SignMessage } from './ports.js';

/** One route: messages from a source chain to a destination chain, maybe narrowed by allowlists. */
export interface RouteConfig {
  /** Defaults to `<source>-><destination>`. */
  readonly id?: string;
  readonly sourceBlockchainId: string;
  readonly destinationBlockchainId: string;
  /** Origin senders (the contracts that called sendCrossChainMessage) relayed; empty or absent: any. */
  readonly allowedOriginSenders?: readonly Hex[];
  /** Destination addresses relayed to; empty or absent: any. */
  readonly allowedDestinationAddresses?: readonly Hex[];
  /** Messages asking more `requiredGasLimit` than this are skipped (absent: no cap). */
  readonly maxRequiredGasLimit?: bigint;
  /** Where a route with no checkpoint starts: a block number, or 'head' (the default). */
  readonly startHeight?: number | 'head';
}

export interface RelayerLimits {
  /** Deliveries (aggregation + transaction) at once, per route. */
  readonly maxInFlight: number;
  /** Messages per route waiting for delivery (queued or waiting to retry); reading the source pauses beyond it. */
  readonly maxBacklog: number;
  /** Blocks per eth_getLogs-style range when catching up. */
  readonly catchUpRange: number;
  /** Live blocks buffered while the route is busy; past it the subscription is dropped and caught up later. */
  readonly maxLiveBlocksQueued: number;
  /** Quick retries of one message (kept in memory), before it is parked. */
  readonly retry: Backoff & { readonly attemptsBeforePark: number };
  /** Retries of parked messages, from the store. */
  readonly parked: Backoff & { readonly scanEveryMs: number };
  /** Retries of a source or destination that fails (subscription, catch-up, first contact). */
  readonly reconnect: Backoff;
  /** How long stop() waits for deliveries in flight before aborting them. */
  readonly drainMs: number;
  /** A transaction is broadcast only while the route's lease has at least this long left (capped at the leases' maxMarginMs). */
  readonly leaseMarginMs: number;
  /** Deadline of one RPC call the engine makes itself (head, a range of logs, messageReceived, a manual relay's block). */
  readonly rpcTimeoutMs: number;
  /** Deadline of one aggregation (signing a message for its destination). */
  readonly signTimeoutMs: number;
  /** With no live block for this long, the engine asks the head and catches up any gap. */
  readonly idleCheckMs: number;
  /** Delivered and skipped messages are forgotten this long after their last change. */
  readonly pruneAfterMs: number;
  /** How often the store is pruned. */
  readonly pruneEveryMs: number;
}

export const DEFAULT_RELAYER_LIMITS: RelayerLimits = {
  maxInFlight: 16,
  maxBacklog: 2_000,
  catchUpRange: 2_000,
  maxLiveBlocksQueued: 1_000,
  retry: { initialMs: 1_000, maxMs: 15_000, factor: 2, attemptsBeforePark: 4 },
  parked: { initialMs: 30_000, maxMs: 10 * 60_000, factor: 2, scanEveryMs: 10_000 },
  reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
  drainMs: 30_000,
  leaseMarginMs: 2_000,
  rpcTimeoutMs: 15_000,
  signTimeoutMs: 30_000,
  idleCheckMs: 30_000,
  pruneAfterMs: 7 * 24 * 3600_000,
  pruneEveryMs: 3600_000,
};

/** pino's shape, the part the relayer uses. */
export interface RelayerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface RelayerOptions {
  readonly routes: readonly RouteConfig[];
  /** By source blockchain ID (cb58). */
  readonly sources: Readonly<Record<string, MessageSource>>;
  /** By destination blockchain ID (cb58). */
  readonly destinations: Readonly<Record<string, MessageDestination>>;
  readonly sign: SignMessage;
  readonly store: RelayerStore;
  readonly leases: RouteLeases;
  readonly limits?: Partial<RelayerLimits>;
  readonly logger: RelayerLogger;
  readonly events?: RelayerEvents;
  /** The clock (ms since the epoch); tests move it. */
  readonly now?: () => number;
}

/** A route with its defaults filled in and its allowlists lower-cased. */
export interface Route {
  readonly id: string;
  readonly sourceBlockchainId: string;
  readonly destinationBlockchainId: string;
  readonly allowedOriginSenders: ReadonlySet<string>;
  readonly allowedDestinationAddresses: ReadonlySet<string>;
  readonly maxRequiredGasLimit: bigint | undefined;
  readonly startHeight: number | 'head';
}

/** The routes checked against the ports: each needs its source and destination, and IDs are unique. */
export function resolveRoutes(options: RelayerOptions): Route[] {
  const seen = new Set<string>();
  return options.routes.map((r) => {
    const id = r.id ?? `${r.sourceBlockchainId}->${r.destinationBlockchainId}`;
    if (seen.has(id)) throw new RelayerError('config', `route ${id} is configured twice`);
    seen.add(id);
    if (!options.sources[r.sourceBlockchainId]) throw new RelayerError('config', `route ${id}: no source for chain ${r.sourceBlockchainId}`);
    if (!options.destinations[r.destinationBlockchainId]) {
      throw new RelayerError('config', `route ${id}: no destination for chain ${r.destinationBlockchainId}`);
    }
    if (typeof r.startHeight === 'number' && (!Number.isSafeInteger(r.startHeight) || r.startHeight < 0)) {
      throw new RelayerError('config', `route ${id}: startHeight must be a block number or 'head'`);
    }
    return {
      id,
      sourceBlockchainId: r.sourceBlockchainId,
      destinationBlockchainId: r.destinationBlockchainId,
      allowedOriginSenders: new Set((r.allowedOriginSenders ?? []).map((a) => a.toLowerCase())),
      allowedDestinationAddresses: new Set((r.allowedDestinationAddresses ?? []).map((a) => a.toLowerCase())),
      maxRequiredGasLimit: r.maxRequiredGasLimit,
      startHeight: r.startHeight ?? 'head',
    };
  });
}

export function resolveLimits(limits: Partial<RelayerLimits> | undefined): RelayerLimits {
  const merged = { ...DEFAULT_RELAYER_LIMITS, ...limits };
  for (const key of ['maxInFlight', 'maxBacklog', 'catchUpRange', 'maxLiveBlocksQueued'] as const) {
    if (!Number.isSafeInteger(merged[key]) || merged[key] < 1) throw new RelayerError('config', `limits.${key} must be a positive integer`);
  }
  return merged;
}
