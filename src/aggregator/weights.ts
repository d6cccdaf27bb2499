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

/** Orders canonical indices heaviest first (by index among equals): the canonical order is by key, not weight. */
export function heaviestFirst(set: CanonicalSet): (a: number, b: number) => number {
  return (a, b) => {
    const wa = set.validators[a]!.weight;
    const wb = set.validators[b]!.weight;
    return wa === wb ? a - b : wa > wb ? -1 : 1;
  };
}
