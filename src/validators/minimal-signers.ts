// The fewest signers to put in a signed Warp message. The destination's Warp precompile charges gas
// per signer (and aggregates one public key per signer), so once the signatures in hand reach the
// target weight (quorum + buffer) the message should carry no signer it does not need.
//
// Heaviest first, ties by canonical index: the k heaviest signers have the largest weight of any k
// of them, so the shortest prefix of that order that reaches the target has the fewest possible
// signers, and among those sets the most weight (the most margin against later weight changes).
// No signer in it is redundant, so there is nothing to prune afterwards: with the chosen weights
// w1 >= ... >= wk summing to S, the prefix stopped at k because S - wk < target, and dropping any
// wi >= wk leaves S - wi <= S - wk < target.

export interface SignerWeight {
  /** Canonical index: bit `index` of the signers bitset. */
  index: number;
  weight: bigint;
}

interface SignerSelection {
  /** Ascending, the order of the bits in the signers bitset. */
  indices: number[];
  /** The summed weight of `indices`. */
  weight: bigint;
  /**
   * False when the signers in hand do not reach the target (`indices` then holds all of them), or
   * when there are none: a signed message needs at least one signer.
   */
  reachedTarget: boolean;
}

/** Input the selection cannot be made from: a bad index or weight, or an index given twice. */
export class SignerSelectionError extends Error {
  override readonly name = 'SignerSelectionError';
  constructor(
    readonly reason: string,
    /** The canonical index at fault, when there is one. */
    readonly index?: number,
  ) {
    super(index === undefined ? `signer selection: ${reason}` : `signer selection: signer ${index}: ${reason}`);
  }
}

function checkSigners(signers: readonly SignerWeight[]): void {
  const seen = new Set<number>();
  for (const { index, weight } of signers) {
    if (!Number.isSafeInteger(index) || index < 0) {
      throw new SignerSelectionError(`index ${String(index)} is not a non-negative integer`);
    }
    if (typeof weight !== 'bigint' || weight < 0n) {
      throw new SignerSelectionError(`weight ${String(weight)} is not a non-negative bigint`, index);
    }
    if (seen.has(index)) throw new SignerSelectionError('appears more than once', index);
    seen.add(index);
  }
}

function heaviestFirst(a: SignerWeight, b: SignerWeight): number {
  if (a.weight !== b.weight) return a.weight > b.weight ? -1 : 1;
  return a.index - b.index;
}

/**
 * The fewest of `signers` whose weight reaches `targetWeight`, heaviest first, ties by canonical
 * index. When they cannot reach it, all of them (the caller decides what to do with too little).
 * A signed message needs at least one signer (avalanchego cannot aggregate zero public keys), so
 * a target of 0 or less still selects the heaviest one when there is any.
 */
export function minimalSigners(signers: readonly SignerWeight[], targetWeight: bigint): SignerSelection {
  checkSigners(signers);
  const order = [...signers].sort(heaviestFirst);
  let weight = 0n;
  let count = 0;
  while (count < order.length && (weight < targetWeight || count === 0)) {
    weight += order[count]!.weight;
    count++;
  }
  const indices = order
    .slice(0, count)
    .map((s) => s.index)
    .sort((a, b) => a - b);
  return { indices, weight, reachedTarget: count > 0 && weight >= targetWeight };
}
