// The status page's 15-minute timeline: a fixed ring of intervals, so what it holds does not grow
// with the load, and what it reports is each interval's outcomes and latency percentiles.
import { describe, expect, it } from 'vitest';
import { AggregationTimelineRing, TIMELINE_INTERVAL_MS, TIMELINE_INTERVALS } from '../../src/service/aggregation-timeline.js';

function clock(start = 1_800_000_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('AggregationTimelineRing', () => {
  it('covers the last 15 minutes in 15 s intervals, oldest first, empty ones as zeros', () => {
    const c = clock();
    const ring = new AggregationTimelineRing(undefined, undefined, c.now);
    expect(TIMELINE_INTERVALS * TIMELINE_INTERVAL_MS).toBe(15 * 60_000);
    const t = ring.snapshot();
    expect(t.intervalSeconds).toBe(15);
    expect(t.intervals).toHaveLength(60);
    const starts = t.intervals.map((i) => Date.parse(i.start));
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBe(15_000);
    // The last interval is the current one.
    expect(starts.at(-1)! <= c.now() && c.now() < starts.at(-1)! + 15_000).toBe(true);
    expect(t.intervals.every((i) => i.success + i.quorum_not_reached + i.error === 0 && i.p50Ms === null && i.p99Ms === null)).toBe(true);
  });

  it('counts outcomes per interval and reads p50 and p99 of the successes within 5%', () => {
    const c = clock();
    const ring = new AggregationTimelineRing(undefined, undefined, c.now);
    // 100 successes taking 1..100 ms, 3 quorum failures and an error in the current interval.
    for (let ms = 1; ms <= 100; ms++) ring.record('success', ms);
    for (let i = 0; i < 3; i++) ring.record('quorum_not_reached', 5000);
    ring.record('error', 2);
    c.advance(15_000);
    ring.record('success', 250);
    const t = ring.snapshot();
    const [previous, current] = t.intervals.slice(-2);
    expect(previous).toMatchObject({ success: 100, quorum_not_reached: 3, error: 1 });
    // Failures do not count towards the latency: p99 is the 99th success (99 ms), not 5 s.
    expect(Math.abs(previous!.p50Ms! - 50) / 50).toBeLessThan(0.05);
    expect(Math.abs(previous!.p99Ms! - 99) / 99).toBeLessThan(0.05);
    expect(current).toMatchObject({ success: 1, quorum_not_reached: 0, error: 0 });
    expect(Math.abs(current!.p50Ms! - 250) / 250).toBeLessThan(0.05);
    expect(current!.p99Ms).toBe(current!.p50Ms);
  });

  it('drops what is older than 15 minutes and reuses its interval', () => {
    const c = clock();
    const ring = new AggregationTimelineRing(undefined, undefined, c.now);
    ring.record('success', 10);
    c.advance(14 * 60_000);
    expect(ring.snapshot().intervals.reduce((n, i) => n + i.success, 0)).toBe(1);
    c.advance(60_000);
    // 15 minutes on: the window no longer holds it, although its slot has not been reused yet.
    expect(ring.snapshot().intervals.reduce((n, i) => n + i.success, 0)).toBe(0);
    ring.record('error', 1);
    const t = ring.snapshot();
    expect(t.intervals.reduce((n, i) => n + i.success, 0)).toBe(0);
    expect(t.intervals.at(-1)).toMatchObject({ success: 0, error: 1, p50Ms: null });
  });

  it('holds the same memory however many aggregations it counts', () => {
    const c = clock();
    const ring = new AggregationTimelineRing(undefined, undefined, c.now);
    const bytes = ring.counterBytes;
    expect(bytes).toBeLessThan(64 * 1024);
    // 1,000,000 aggregations over an hour: every interval of the ring reused four times over.
    for (let i = 0; i < 1_000_000; i++) {
      ring.record(i % 10 === 0 ? 'quorum_not_reached' : 'success', (i % 5000) + 0.5);
      if (i % 4000 === 0) c.advance(15_000);
    }
    expect(ring.intervals).toBe(TIMELINE_INTERVALS);
    expect(ring.counterBytes).toBe(bytes);
    const t = ring.snapshot();
    expect(t.intervals).toHaveLength(TIMELINE_INTERVALS);
    // Latencies past any deadline land in the last bucket rather than a new one.
    c.advance(15_000);
    ring.record('success', 10 * 60_000);
    expect(ring.counterBytes).toBe(bytes);
    expect(ring.snapshot().intervals.at(-1)!.p50Ms).toBeGreaterThan(100_000);
  });
});
