// When a validator may be dialled again. avalanchego throttles inbound upgrades to one per IP
// per 10 s (network/throttling/inbound_conn_upgrade_throttler.go, cooldown from
// utils/constants/networking.go), so attempts to one validator are never closer than
// `minIntervalMs`; failures back off exponentially (with jitter) up to `maxMs`; a penalised
// peer waits out its cooldown (util/penalty-box.ts keeps the strikes).
import type { PenaltyOptions } from '../util/penalty-box.js';

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

/** How many faults ban a node, and for how long; PenaltyBox keeps the count. */
export type PenaltyPolicy = Required<PenaltyOptions>;

export const DEFAULT_PENALTY_POLICY: PenaltyPolicy = { threshold: 3, windowMs: 10 * 60_000, cooldownMs: 10 * 60_000, maxTrackedKeys: 100_000 };
