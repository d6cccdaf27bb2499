// Quorum arithmetic in bigint, exactly as avalanchego's warp.VerifyWeight: a signature set
// passes iff signedWeight * 100 >= totalWeight * quorumPercentage. No floats, no rounding, and
// the total includes keyless weight (protocol.md section 4.5).
import { QuorumPercentageError } from './errors.js';

export const DEFAULT_QUORUM_PERCENTAGE = 67;

/** True iff `value` is an integer from 0 to 100 (a JS number, as requests and flags carry it). */
export function isQuorumPercentage(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 100;
}

/** Returns `value` when it is a valid quorum percentage; throws QuorumPercentageError naming `what`. */
export function checkQuorumPercentage(value: unknown, what = 'quorumPercentage'): number {
  if (!isQuorumPercentage(value)) throw new QuorumPercentageError(what, value);
  return value;
}

export function quorumReached(signedWeight: bigint, totalWeight: bigint, quorumPercentage: number): boolean {
  const pct = BigInt(checkQuorumPercentage(quorumPercentage));
  return signedWeight * 100n >= totalWeight * pct;
}

/**
 * The least signed weight that reaches the quorum: ceil(totalWeight * pct / 100). By
 * construction quorumReached(requiredWeight(t, p), t, p) holds and one unit less does not
 * (for t * p > 0).
 */
export function requiredWeight(totalWeight: bigint, quorumPercentage: number): bigint {
  const pct = BigInt(checkQuorumPercentage(quorumPercentage));
  const scaled = totalWeight * pct;
  return (scaled + 99n) / 100n;
}
