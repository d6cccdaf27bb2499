// The heaviest-first order every collection over a set asks and checks in: computed once per set
// (each collection sorting 1,000 indices by bigint weight was measurable per aggregation).
import { describe, expect, it } from 'vitest';
import { heaviestFirst, heaviestOrder } from '../../src/aggregator/weights.js';
import { testNetwork } from './helpers.js';

describe('heaviestOrder', () => {
  it('lists canonical indices heaviest first, equal weights by index, and the comparator agrees', () => {
    const net = testNetwork([10, 50, 20, 50, 30, 10], 0, 'weights-order');
    const order = heaviestOrder(net.set);
    const weights = order.map((i) => net.set.validators[i]!.weight);
    expect(weights).toEqual([50n, 50n, 30n, 20n, 10n, 10n]);
    // Ties go by canonical index.
    expect(order[0]!).toBeLessThan(order[1]!);
    expect(order[4]!).toBeLessThan(order[5]!);
    const shuffled = [5, 3, 1, 0, 4, 2].sort(heaviestFirst(net.set));
    expect(shuffled).toEqual(order);
  });

  it('is computed once per set and shared', () => {
    const a = testNetwork([1, 2, 3], 0, 'weights-a');
    const b = testNetwork([3, 2, 1], 0, 'weights-b');
    expect(heaviestOrder(a.set)).toBe(heaviestOrder(a.set));
    expect(heaviestOrder(b.set)).not.toBe(heaviestOrder(a.set));
    expect(heaviestOrder(b.set).map((i) => b.set.validators[i]!.weight)).toEqual([3n, 2n, 1n]);
  });
});
