// EIP-1559 fees for deliveries and their replacements. A first submission offers twice the latest
// base fee plus the node's suggested tip (room for the base fee to rise while it waits); each
// replacement raises both by `bumpPercent` (avalanchego's EVMs refuse a replacement that does
// not raise both by at least 10%; 12.5% by default leaves rounding room), never above the cap.
export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface FeePolicy {
  /** The most a delivery may offer per gas, in wei. */
  readonly maxFeePerGasCap: bigint;
  /** The most tip per gas, in wei (default: the cap). */
  readonly maxPriorityFeePerGasCap?: bigint;
  /** Each replacement's raise in percent (default 12.5, at least 10.01). */
  readonly bumpPercent?: number;
}

export class FeeCapError extends Error {
  override readonly name = 'FeeCapError';
}

const PERMILLE = 1000n;

export function bumpPermille(policy: FeePolicy): bigint {
  const percent = policy.bumpPercent ?? 12.5;
  if (!(percent > 10)) throw new RangeError(`bumpPercent must be above 10 (the node refuses smaller replacements), got ${percent}`);
  return BigInt(Math.ceil(percent * 10));
}

/** The first offer: 2 × base fee + tip, the tip capped; throws FeeCapError when the base fee alone is over the cap. */
export function initialFees(baseFee: bigint, suggestedTip: bigint, policy: FeePolicy): Fees {
  if (baseFee > policy.maxFeePerGasCap) throw new FeeCapError(`the base fee ${baseFee} wei is above the cap of ${policy.maxFeePerGasCap} wei`);
  const tipCap = policy.maxPriorityFeePerGasCap ?? policy.maxFeePerGasCap;
  const tip = suggestedTip < tipCap ? suggestedTip : tipCap;
  const wanted = baseFee * 2n + tip;
  const maxFeePerGas = wanted < policy.maxFeePerGasCap ? wanted : policy.maxFeePerGasCap;
  return { maxFeePerGas, maxPriorityFeePerGas: tip < maxFeePerGas ? tip : maxFeePerGas };
}

const raise = (value: bigint, permille: bigint): bigint => (value * (PERMILLE + permille) + PERMILLE - 1n) / PERMILLE;

/**
 * The replacement's fees: both raised by the bump (and at least to what the chain wants now), or
 * null when the cap leaves no room for a raise the node would accept.
 */
export function bumpedFees(previous: Fees, now: Fees, policy: FeePolicy): Fees | null {
  const permille = bumpPermille(policy);
  const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
  const maxFeePerGas = max(raise(previous.maxFeePerGas, permille), now.maxFeePerGas);
  const maxPriorityFeePerGas = max(raise(previous.maxPriorityFeePerGas, permille), now.maxPriorityFeePerGas);
  const tipCap = policy.maxPriorityFeePerGasCap ?? policy.maxFeePerGasCap;
  if (maxFeePerGas > policy.maxFeePerGasCap || maxPriorityFeePerGas > tipCap) return null;
  return { maxFeePerGas, maxPriorityFeePerGas: maxPriorityFeePerGas < maxFeePerGas ? maxPriorityFeePerGas : maxFeePerGas };
}
