// Weight bookkeeping shared by the fan-out and the signature ledger.
import type { CanonicalSet } from '../validators/canonical-set.js';

/** A count and the weight of what it counts, kept together so neither can drift from the other. */
export class Tally {
  count = 0;
  weight = 0n;

  add(weight: bigint): void {
    this.count++;
    this.weight += weight;
  }

  remove(weight: bigint): void {
    this.count--;
    this.weight -= weight;
  }
}

/** Each set's canonical indices heaviest first, and each index's place in that order. */
interface HeaviestOrder {
  order: readonly number[];
  rank: Int32Array;
}

/**
 * Computed once per set: every collection over a set (1,000 validators) sorting its indices by
 * bigint weight cost ~4 ms of the event loop per aggregation (bench --cpu-prof). Sets are
 * immutable and shared through the set cache, so the order is kept beside them, as long as they live.
 */
const orders = new WeakMap<CanonicalSet, HeaviestOrder>();

function heaviestOrderOf(set: CanonicalSet): HeaviestOrder {
  let known = orders.get(set);
  if (!known) {
    const vs = set.validators;
    const order = vs
      .map((_, i) => i)
      .sort((a, b) => {
        const wa = vs[a]!.weight;
        const wb = vs[b]!.weight;
        return wa === wb ? a - b : wa > wb ? -1 : 1;
      });
    const rank = new Int32Array(vs.length);
    order.forEach((index, place) => (rank[index] = place));
    known = { order, rank };
    orders.set(set, known);
  }
  return known;
}

/** The set's canonical indices, heaviest first (by index among equals). Shared: do not modify. */
export function heaviestOrder(set: CanonicalSet): readonly number[] {
  return heaviestOrderOf(set).order;
}

/** Orders canonical indices heaviest first (by index among equals): the canonical order is by key, not weight. */
export function heaviestFirst(set: CanonicalSet): (a: number, b: number) => number {
  const { rank } = heaviestOrderOf(set);
  return (a, b) => rank[a]! - rank[b]!;
}
