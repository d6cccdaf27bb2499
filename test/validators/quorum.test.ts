import { describe, expect, it } from 'vitest';
import { QuorumPercentageError } from '../../src/validators/errors.js';
import { checkQuorumPercentage, isQuorumPercentage, quorumReached, requiredWeight } from '../../src/validators/quorum.js';

describe('quorum arithmetic', () => {
  it('accepts exactly 67% and rejects one unit less', () => {
    expect(quorumReached(67n, 100n, 67)).toBe(true);
    expect(quorumReached(66n, 100n, 67)).toBe(false);
    // 650 * 67 = 43550: 435.5 rounds up to 436, and 435 does not pass.
    expect(quorumReached(436n, 650n, 67)).toBe(true);
    expect(quorumReached(435n, 650n, 67)).toBe(false);
  });

  it('requiredWeight is the least passing weight (ceil)', () => {
    expect(requiredWeight(650n, 67)).toBe(436n);
    expect(requiredWeight(100n, 67)).toBe(67n);
    for (const [total, pct] of [[1n, 1], [3n, 67], [999_999_999_999n, 33], [2n ** 64n - 1n, 67], [7n, 100]] as const) {
      const need = requiredWeight(total, pct);
      expect(quorumReached(need, total, pct)).toBe(true);
      expect(quorumReached(need - 1n, total, pct)).toBe(false);
    }
  });

  it('0% is met by nothing signed, 100% needs all weight', () => {
    expect(quorumReached(0n, 650n, 0)).toBe(true);
    expect(requiredWeight(650n, 0)).toBe(0n);
    expect(quorumReached(650n, 650n, 100)).toBe(true);
    expect(quorumReached(649n, 650n, 100)).toBe(false);
    expect(requiredWeight(650n, 100)).toBe(650n);
  });

  it('is exact beyond 2^64 intermediate products', () => {
    const total = 2n ** 64n - 1n;
    const need = requiredWeight(total, 67);
    expect(need).toBe((total * 67n + 99n) / 100n);
    expect(quorumReached(need, total, 67)).toBe(true);
  });

  it('rejects percentages that are not integers from 0 to 100', () => {
    for (const bad of [-1, 101, 66.5, Number.NaN, '67', null]) {
      expect(isQuorumPercentage(bad)).toBe(false);
      expect(() => checkQuorumPercentage(bad, 'quorumPercentage')).toThrow(QuorumPercentageError);
    }
    expect(() => quorumReached(1n, 1n, 101)).toThrow(/quorumPercentage must be an integer from 0 to 100, got 101/);
    expect(checkQuorumPercentage(0)).toBe(0);
    expect(checkQuorumPercentage(100)).toBe(100);
  });
});
