// The fewest signers that reach the target: table cases with uneven weights and a buffer on top of
// the quorum, and properties checked against brute force.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minimalSigners, SignerSelectionError, type SignerWeight } from '../../src/validators/minimal-signers.js';
import { requiredWeight } from '../../src/validators/quorum.js';

const signers = (...weights: number[]): SignerWeight[] => weights.map((w, index) => ({ index, weight: BigInt(w) }));
const sum = (xs: readonly SignerWeight[]) => xs.reduce((t, s) => t + s.weight, 0n);

describe('minimalSigners: table', () => {
  // Total 100. Canonical order is by BLS key, so weight and index are unrelated.
  const uneven = signers(10, 50, 5, 30, 5);

  it.each([
    // [target, expected indices, expected weight]
    ['quorum 67%', requiredWeight(100n, 67), [1, 3], 80n],
    ['quorum 67% + buffer 10', requiredWeight(100n, 77), [1, 3], 80n],
    ['quorum 67% + buffer 20', requiredWeight(100n, 87), [0, 1, 3], 90n],
    ['quorum 67% + buffer 28', requiredWeight(100n, 95), [0, 1, 2, 3], 95n],
    ['exactly one signer', 50n, [1], 50n],
  ] as const)('%s', (_name, target, indices, weight) => {
    expect(minimalSigners(uneven, target)).toEqual({ indices, weight, reachedTarget: true });
  });

  it('drops the light signers that arrived first in favour of heavy ones that came later', () => {
    // Arrival order: ten light validators, then two heavy ones. Taking signatures as they came
    // until the target would carry 11 signers; heaviest first carries 8.
    const arrived: SignerWeight[] = [
      ...Array.from({ length: 10 }, (_, i) => ({ index: i + 2, weight: 10n })),
      { index: 0, weight: 40n },
      { index: 1, weight: 35n },
    ];
    const total = sum(arrived); // 175
    const target = requiredWeight(total, 67 + 5); // 126
    const r = minimalSigners(arrived, target);
    expect(r).toEqual({ indices: [0, 1, 2, 3, 4, 5, 6, 7], weight: 135n, reachedTarget: true });
  });

  it('breaks ties by canonical index, whatever the input order', () => {
    const tied: SignerWeight[] = [7, 3, 9, 1].map((index) => ({ index, weight: 5n }));
    expect(minimalSigners(tied, 10n).indices).toEqual([1, 3]);
    expect(minimalSigners([...tied].reverse(), 10n).indices).toEqual([1, 3]);
  });

  it('when the signers in hand fall short, returns all of them, ascending', () => {
    const short: SignerWeight[] = [
      { index: 9, weight: 20n },
      { index: 2, weight: 30n },
    ];
    expect(minimalSigners(short, 51n)).toEqual({ indices: [2, 9], weight: 50n, reachedTarget: false });
  });

  it('selects one signer for a target of 0, none when there are none', () => {
    expect(minimalSigners(uneven, 0n)).toEqual({ indices: [1], weight: 50n, reachedTarget: true });
    expect(minimalSigners([], 0n)).toEqual({ indices: [], weight: 0n, reachedTarget: false });
    expect(minimalSigners([], 1n)).toEqual({ indices: [], weight: 0n, reachedTarget: false });
  });

  it('keeps weights beyond 2^53 exact', () => {
    const big = 1n << 62n;
    const r = minimalSigners(
      [
        { index: 0, weight: big },
        { index: 1, weight: big + 1n },
        { index: 2, weight: 1n },
      ],
      2n * big + 1n,
    );
    expect(r).toEqual({ indices: [0, 1], weight: 2n * big + 1n, reachedTarget: true });
  });

  it('rejects a duplicate index, a negative weight and a bad index with a typed error', () => {
    expect(() => minimalSigners([{ index: 3, weight: 1n }, { index: 3, weight: 2n }], 1n)).toThrow(
      new SignerSelectionError('appears more than once', 3),
    );
    expect(() => minimalSigners([{ index: 0, weight: -1n }], 1n)).toThrow(/signer 0: weight -1 is not a non-negative bigint/);
    expect(() => minimalSigners([{ index: 1.5, weight: 1n }], 1n)).toThrow(SignerSelectionError);
    expect(() => minimalSigners([{ index: -1, weight: 1n }], 1n)).toThrow(/index -1/);
  });
});

// --- Properties.
const signerSet = (maxLength: number, maxWeight: bigint) =>
  fc
    .uniqueArray(fc.nat({ max: 2000 }), { maxLength })
    .chain((indices) =>
      fc.tuple(
        fc.constant(indices),
        fc.array(fc.bigInt({ min: 0n, max: maxWeight }), { minLength: indices.length, maxLength: indices.length }),
      ),
    )
    .map(([indices, weights]) => indices.map((index, i) => ({ index, weight: weights[i]! })));

// A target anywhere from 0 to a bit past the total, so both reachable and unreachable cases occur.
const withTarget = (set: fc.Arbitrary<SignerWeight[]>) =>
  set.chain((s) => fc.tuple(fc.constant(s), fc.bigInt({ min: 0n, max: sum(s) + 3n })));

/** Reference: heaviest first (any tie order), stop as soon as the target is reached. */
function greedyPrefixLength(s: readonly SignerWeight[], target: bigint): number {
  const weights = s.map((x) => x.weight).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  let total = 0n;
  for (let i = 0; i < weights.length; i++) {
    if (total >= target && i > 0) return i;
    total += weights[i]!;
  }
  return weights.length;
}

describe('minimalSigners: properties', () => {
  const RUNS = { numRuns: 400 };

  it('reaches the target when the signers can, else returns them all; indices ascending and from the input', () => {
    fc.assert(
      fc.property(withTarget(signerSet(40, 1n << 50n)), ([s, target]) => {
        const r = minimalSigners(s, target);
        const byIndex = new Map(s.map((x) => [x.index, x.weight]));
        expect(r.indices.every((i) => byIndex.has(i))).toBe(true);
        expect(r.indices).toEqual([...r.indices].sort((a, b) => a - b));
        expect(new Set(r.indices).size).toBe(r.indices.length);
        expect(r.weight).toBe(r.indices.reduce((t, i) => t + byIndex.get(i)!, 0n));
        if (s.length > 0 && sum(s) >= target) {
          expect(r.reachedTarget).toBe(true);
          expect(r.weight >= target).toBe(true);
        } else {
          expect(r.reachedTarget).toBe(false);
          expect(r.indices).toEqual(s.map((x) => x.index).sort((a, b) => a - b));
        }
      }),
      RUNS,
    );
  });

  it('no chosen signer is redundant: dropping any one falls below the target', () => {
    fc.assert(
      fc.property(withTarget(signerSet(40, 1n << 50n)), ([s, target]) => {
        const r = minimalSigners(s, target);
        if (!r.reachedTarget || r.indices.length === 1) return;
        const byIndex = new Map(s.map((x) => [x.index, x.weight]));
        for (const i of r.indices) expect(r.weight - byIndex.get(i)! < target).toBe(true);
      }),
      RUNS,
    );
  });

  it('is never larger than the greedy heaviest-first prefix', () => {
    fc.assert(
      fc.property(withTarget(signerSet(40, 1000n)), ([s, target]) => {
        expect(minimalSigners(s, target).indices.length).toBeLessThanOrEqual(greedyPrefixLength(s, target));
      }),
      RUNS,
    );
  });

  it('has the fewest signers of any subset that reaches the target (brute force, up to 10 signers)', () => {
    fc.assert(
      fc.property(withTarget(signerSet(10, 100n)), ([s, target]) => {
        const r = minimalSigners(s, target);
        if (!r.reachedTarget) return;
        let fewest = Infinity;
        for (let mask = 1; mask < 1 << s.length; mask++) {
          let w = 0n;
          let n = 0;
          for (let i = 0; i < s.length; i++) if (mask & (1 << i)) (w += s[i]!.weight), n++;
          if (w >= target && n < fewest) fewest = n;
        }
        expect(r.indices.length).toBe(fewest);
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic: any input order gives the same selection', () => {
    fc.assert(
      fc.property(
        withTarget(signerSet(30, 20n)).chain(([s, t]) => fc.tuple(fc.constant(s), fc.constant(t), fc.shuffledSubarray(s, { minLength: s.length }))),
        ([s, target, shuffled]) => {
          expect(minimalSigners(shuffled, target)).toEqual(minimalSigners(s, target));
        },
      ),
      RUNS,
    );
  });
});
