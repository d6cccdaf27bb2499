// The bench's bounded timeline (bench/timeline.ts): however many points a run offers, what it
// keeps covers the whole run at an even spacing, within its bound.
import { describe, expect, it } from 'vitest';
import { Timeline } from '../../bench/timeline.js';

describe('Timeline', () => {
  it.each([10, 199, 200, 201, 1_000, 5_021, 100_000])('keeps %i offered points evenly spaced, from the first to the last kept, within the bound', (offered) => {
    const t = new Timeline(100);
    for (let i = 0; i < offered; i++) t.offer(i * 10, i);
    const points = t.read();
    expect(points.length).toBeLessThanOrEqual(101);
    expect(points[0]).toEqual([0, 0]);
    // Every gap but the last is the same: no part of the run thinner than another.
    const gaps = points.slice(1).map(([ms], i) => ms - points[i]![0]);
    expect(new Set(gaps.slice(0, -1)).size).toBeLessThanOrEqual(1);
    // The end of the run is there: the last point kept is within one gap of the last offered.
    const last = points.at(-1)![0];
    expect((offered - 1) * 10 - last).toBeLessThanOrEqual(Math.max(...gaps, 0));
    // A run short enough for the bound keeps every point.
    if (offered <= 100) expect(points).toHaveLength(offered);
  });

  it('refuses a bound below one point', () => {
    expect(() => new Timeline(0)).toThrow(RangeError);
  });
});
