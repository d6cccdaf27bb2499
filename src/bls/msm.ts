// Multi-scalar multiplication Σ k_i·P_i for 64-bit scalars (Pippenger's bucket method), for the
// noble backend's random-scalar batch check (verifySameMessage). noble's own pippenger walks all 255 scalar bits; with
// 64-bit blinding scalars this one does a quarter of the work, and it is ~6x faster than one
// multiplyUnsafe per point at 1,000 points.

/** The little of a curve point's API this needs (noble's G1 and G2 points both fit). */
interface GroupElement<P> {
  add(other: P): P;
  double(): P;
}

const SCALAR_BITS = 64;

/** Bucket width minimising (windows × (points + 2·buckets)) point additions. */
function bestWindowBits(points: number): number {
  let best = 1;
  let bestCost = Number.POSITIVE_INFINITY;
  for (let bits = 1; bits <= 16; bits++) {
    const cost = Math.ceil(SCALAR_BITS / bits) * (points + 2 ** (bits + 1)) + SCALAR_BITS;
    if (cost < bestCost) {
      best = bits;
      bestCost = cost;
    }
  }
  return best;
}

export function multiScalarMul64<P extends GroupElement<P>>(
  zero: P,
  points: readonly P[],
  scalars: BigUint64Array,
): P {
  if (points.length !== scalars.length) {
    throw new RangeError(`msm: ${points.length} points but ${scalars.length} scalars`);
  }
  const bits = bestWindowBits(points.length);
  const mask = BigInt(2 ** bits - 1);
  // Empty buckets stay undefined so that no addition is spent on the neutral element.
  const buckets: (P | undefined)[] = new Array<P | undefined>(2 ** bits - 1);
  let acc: P | undefined;
  for (let shift = Math.floor((SCALAR_BITS - 1) / bits) * bits; shift >= 0; shift -= bits) {
    if (acc !== undefined) for (let i = 0; i < bits; i++) acc = acc.double();
    buckets.fill(undefined);
    const bigShift = BigInt(shift);
    for (let i = 0; i < points.length; i++) {
      const digit = Number(((scalars[i] as bigint) >> bigShift) & mask);
      if (digit === 0) continue;
      const point = points[i] as P;
      const bucket = buckets[digit - 1];
      buckets[digit - 1] = bucket === undefined ? point : bucket.add(point);
    }
    // Σ d·bucket_d as a running sum from the top bucket down: 2 additions per bucket.
    let running: P | undefined;
    let windowSum: P | undefined;
    for (let d = buckets.length - 1; d >= 0; d--) {
      const bucket = buckets[d];
      if (bucket !== undefined) running = running === undefined ? bucket : running.add(bucket);
      if (running !== undefined) windowSum = windowSum === undefined ? running : windowSum.add(running);
    }
    if (windowSum !== undefined) acc = acc === undefined ? windowSum : acc.add(windowSum);
  }
  return acc ?? zero;
}
