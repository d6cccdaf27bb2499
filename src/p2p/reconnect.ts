// When a validator may be dialled again. avalanchego throttles inbound upgrades to one per IP
// per 10 s (network/throttling/inbound_conn_upgrade_throttler.go, cooldown from
// utils/constants/networking.go), so attempts to one validator are never closer than
// `minIntervalMs`; failures back off exponentially (with jitter) up to `maxMs`; a penalised
// peer waits out its cooldown; strikes are bounded per node and in number of nodes.

export interface ReconnectPolicy {
  /** Never two attempts to one validator closer than this. */
  minIntervalMs: number;
  maxMs: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = { minIntervalMs: 10_000, maxMs: 5 * 60_000 };

/** Delay of attempt number `failures` (0 = first retry) before jitter. */
export function reconnectDelay(failures: number, policy: ReconnectPolicy, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.minIntervalMs * 2 ** Math.min(failures, 30));
  // Jitter only upwards: the floor is the throttle.
  return Math.min(policy.maxMs, Math.round(base * (1 + 0.25 * random())));
}

export interface PenaltyPolicy {
  /** Faults within `windowMs` that ban a node. */
  threshold: number;
  windowMs: number;
  cooldownMs: number;
  maxTrackedNodes: number;
}

export const DEFAULT_PENALTY_POLICY: PenaltyPolicy = { threshold: 3, windowMs: 10 * 60_000, cooldownMs: 10 * 60_000, maxTrackedNodes: 100_000 };

export class NodePenalties {
  private readonly faults = new Map<string, number[]>();
  private readonly bannedUntil = new Map<string, number>();

  constructor(
    private readonly policy: PenaltyPolicy,
    private readonly now: () => number,
  ) {}

  /** Records a fault; true when it bans the node. */
  record(nodeId: string): boolean {
    const t = this.now();
    const recent = (this.faults.get(nodeId) ?? []).filter((at) => t - at < this.policy.windowMs);
    recent.push(t);
    this.faults.delete(nodeId);
    if (recent.length >= this.policy.threshold) {
      this.bounded(this.bannedUntil, nodeId, t + this.policy.cooldownMs);
      return true;
    }
    this.bounded(this.faults, nodeId, recent);
    return false;
  }

  banRemaining(nodeId: string): number {
    const until = this.bannedUntil.get(nodeId);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return left;
    this.bannedUntil.delete(nodeId);
    return 0;
  }

  private bounded<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > this.policy.maxTrackedNodes) map.delete(map.keys().next().value as string);
  }
}
