// What GET /status.json answers and the status page shows: the contract between the service,
// which gathers it (service/status.ts), and the HTTP layer, which only serves it. Weights are
// decimal strings (uint64 does not fit a JSON number); times are milliseconds. It holds nothing
// secret and no client address: no configuration values, no upstream URLs, no peer addresses.
// Documented field by field in the OpenAPI document (server/openapi/status-schema.ts).

/** How a peer's last request ended: a signature (valid or not, checked later), or none. */
export type AnswerResult = 'signature' | 'refused' | 'timeout' | 'error';

export interface ValidatorStatus {
  /** Every node ID that registered this BLS key. */
  nodeIds: string[];
  /** Compressed BLS public key, hex. */
  publicKey: string;
  weight: string;
  /** Share of the subnet's total weight, in percent. */
  weightPercent: number;
  connected: boolean;
  /** The transport it is connected over ('websocket', …); null when not connected. */
  transport: string | null;
  /** The last request this service sent it; null when none since the service started. */
  lastAnswer: { result: AnswerResult; ms: number; secondsAgo: number } | null;
  /** Penalties (invalid signatures) since the service started. */
  penalties: number;
}

export interface SubnetStatus {
  subnetId: string;
  /** Listed in readiness.subnets (checked by /ready), or only signed for recently. */
  tracked: boolean;
  /** No set of this subnet is held yet (the page reads none): why the weights are absent. */
  error?: string;
  totalWeight?: string;
  connectedWeight?: string;
  connectedPercent?: number;
  /** readiness.quorumPercentage: the connected stake /ready asks for. */
  quorumPercentage: number;
  validatorCount?: number;
  connectedCount?: number;
  /** The heaviest validators, at most status.validatorsPerSubnet. */
  validators: ValidatorStatus[];
}

/** A connected avalanchego validator that leaves this service's requests unanswered, and why it likely does. */
export interface SilentValidator {
  nodeId: string;
  /** 'chain': answers other chains but never this one; 'everything': has answered no request at all. */
  pattern: 'chain' | 'everything';
  /** cb58 ID of the chain asked. */
  chainId: string;
  unansweredInARow: number;
  reason: string;
  remedy: string;
}

export type AggregationOutcome = 'success' | 'quorum_not_reached' | 'error';

export interface RecentAggregation {
  /** When it ended (ISO 8601). */
  at: string;
  subnetId: string | null;
  outcome: AggregationOutcome;
  /** From the request's arrival at the aggregator to its result. */
  ms: number;
  /** What the signers themselves took: from the first request until the signatures completing the target weight had arrived; null when not known (no success). */
  idealMs: number | null;
  /** Validators in the signed message; null unless a success. */
  signers: number | null;
  signedWeight: string | null;
  totalWeight: string | null;
  /** The error's kind (its class name) for an 'error' outcome. */
  error: string | null;
}

/** The Redis replicas share (redis.url): its health and what it saved this replica. */
export interface SharedStateStatus {
  /** 'disabled' without redis.url. */
  state: 'disabled' | 'connecting' | 'connected' | 'unavailable';
  /** "shared state unavailable: …" with why; null when connected or disabled. */
  reason: string | null;
  /** Reads of the shared signature cache that found signatures, found none, and entries dropped (malformed or failing their check). */
  sharedCacheHits: number;
  sharedCacheMisses: number;
  sharedCacheInvalid: number;
  /** Aggregations collected under the lease, answered from another replica's collection, and leases taken over. */
  coalesced: { holder: number; waiter: number; takeover: number };
  /** Operations done with local state because Redis could not be used. */
  fallbacks: number;
  /** Redis commands sent. */
  commands: number;
}

/** One interval of the timeline: aggregations that ended in it, by outcome, and the latency of its successes. */
interface TimelineInterval {
  /** When it began (ISO 8601). */
  start: string;
  success: number;
  quorum_not_reached: number;
  error: number;
  /** Median and 99th percentile latency of its successes (within 5%); null when none succeeded. */
  p50Ms: number | null;
  p99Ms: number | null;
}

/** The last 15 minutes, interval by interval, oldest first; the last interval is the current one, still filling. */
export interface AggregationTimeline {
  intervalSeconds: number;
  intervals: TimelineInterval[];
}

export interface StatusReport {
  version: string;
  startedAt: string;
  uptimeSeconds: number;
  /** How often the page asks again (status.refreshMs). */
  refreshMs: number;
  ready: boolean;
  /** Why not ready (as /ready says). */
  reasons: string[];
  /** silent: avalanchego validators that drop this service's requests without an answer, with the likely reason and the remedy. */
  peers: { connected: number; byTransport: Record<string, number>; silent: SilentValidator[] };
  subnets: SubnetStatus[];
  aggregations: {
    inFlight: number;
    /** Since the service started, by outcome (the warpgate_aggregation_seconds histogram's counts). */
    total: number;
    byOutcome: Record<AggregationOutcome, number>;
    /** The last ones, newest first, at most status.recentAggregations. */
    recent: RecentAggregation[];
    /** Outcomes and latency per interval over the last 15 minutes (the page's chart). */
    timeline: AggregationTimeline;
  };
  signatureCache: { messages: number; signatures: number; maxMessages: number; maxSignatures: number; hits: number; misses: number };
  workers: { threads: number; queued: number; maxQueue: number };
  sharedState: SharedStateStatus;
  /** The relayer's routes and counts: only when the config has relayer.routes. */
  relayer?: RelayerStatus;
}

/** A relayer route on the status page (relayer/ports.ts RouteState, figures only). */
interface RelayerRouteStatus {
  id: string;
  checkpoint: number | null;
  head: number | null;
  held: boolean;
  inFlight: number;
  parked: number;
  problem?: string;
}

export interface RelayerStatus {
  routes: RelayerRouteStatus[];
  delivered: number;
  deliveredByOthers: number;
  skipped: number;
  parked: number;
  retries: number;
  takeovers: number;
  inFlightAtTakeover: number;
  lowBalanceKeys: { chain: string; address: string; balanceWei: string }[];
}
