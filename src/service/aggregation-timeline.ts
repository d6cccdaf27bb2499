// The last 15 minutes of aggregations, interval by interval, for the status page's chart: how
// many ended in each outcome, and the latency of the successful ones (p50, p99). A fixed ring of
// intervals allocated once, each a few counters and a latency histogram of fixed buckets, so the
// memory it holds is the same at one aggregation a minute or ten thousand a second. An interval
// is reused (cleared) when the clock comes round to it again.
import type { AggregationOutcome, AggregationTimeline } from '../server/status/report.js';

/** 60 intervals of 15 s: the last 15 minutes. */
export const TIMELINE_INTERVAL_MS = 15_000;
export const TIMELINE_INTERVALS = 60;

/**
 * Latency buckets: 8 a doubling from 1/8 ms up to 2^17 ms (131 s, past any deadline allowed):
 * bucket i holds latencies up to 2^(i/8) / 8 ms, so a percentile read from it (the geometric
 * middle of its bucket) is within 4.4% of the latency measured.
 */
const BUCKETS_PER_DOUBLING = 8;
const MIN_MS = 1 / 8;
const BUCKETS = 20 * BUCKETS_PER_DOUBLING + 1;

function bucketOf(ms: number): number {
  if (!(ms > MIN_MS)) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log2(ms / MIN_MS) * BUCKETS_PER_DOUBLING));
}

/** The geometric middle of bucket i: between its lower and upper bounds. */
function bucketValue(i: number): number {
  return MIN_MS * 2 ** ((i - 0.5) / BUCKETS_PER_DOUBLING);
}

const OUTCOMES: readonly AggregationOutcome[] = ['success', 'quorum_not_reached', 'error'];

interface Interval {
  /** The interval's number since the epoch (start = index × intervalMs); -1 when never used. */
  index: number;
  /** Aggregations ended in it, by outcome (OUTCOMES' order). */
  readonly outcomes: Uint32Array;
  /** Latencies of its successes, by bucket. */
  readonly latency: Uint32Array;
}

export class AggregationTimelineRing {
  private readonly ring: Interval[];

  constructor(
    private readonly intervalMs = TIMELINE_INTERVAL_MS,
    intervals = TIMELINE_INTERVALS,
    private readonly now: () => number = Date.now,
  ) {
    this.ring = Array.from({ length: intervals }, () => ({ index: -1, outcomes: new Uint32Array(OUTCOMES.length), latency: new Uint32Array(BUCKETS) }));
  }

  /** Bytes of counters it holds: fixed at construction (the test's check that load does not grow it). */
  get counterBytes(): number {
    return this.ring.reduce((n, i) => n + i.outcomes.byteLength + i.latency.byteLength, 0);
  }

  get intervals(): number {
    return this.ring.length;
  }

  record(outcome: AggregationOutcome, ms: number): void {
    const slot = this.slotFor(Math.floor(this.now() / this.intervalMs));
    slot.outcomes[OUTCOMES.indexOf(outcome)]!++;
    if (outcome === 'success') slot.latency[bucketOf(ms)]!++;
  }

  /** Every interval of the window, oldest first, the current (partial) one last; empty ones as zeros. */
  snapshot(): AggregationTimeline {
    const current = Math.floor(this.now() / this.intervalMs);
    const intervals = [];
    for (let index = current - this.ring.length + 1; index <= current; index++) {
      const slot = this.ring[index % this.ring.length]!;
      const live = slot.index === index;
      const count = (k: number): number => (live ? slot.outcomes[k]! : 0);
      intervals.push({
        start: new Date(index * this.intervalMs).toISOString(),
        success: count(0),
        quorum_not_reached: count(1),
        error: count(2),
        p50Ms: live ? percentile(slot.latency, slot.outcomes[0]!, 0.5) : null,
        p99Ms: live ? percentile(slot.latency, slot.outcomes[0]!, 0.99) : null,
      });
    }
    return { intervalSeconds: this.intervalMs / 1000, intervals };
  }

  /** The slot of interval `index`, cleared first when it last held an older interval. */
  private slotFor(index: number): Interval {
    const slot = this.ring[index % this.ring.length]!;
    if (slot.index !== index) {
      slot.index = index;
      slot.outcomes.fill(0);
      slot.latency.fill(0);
    }
    return slot;
  }
}

/** The q-quantile (nearest rank) of `n` latencies counted in `buckets`, rounded to 0.1 ms; null for none. */
function percentile(buckets: Uint32Array, n: number, q: number): number | null {
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(q * n));
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i]!;
    if (seen >= rank) return Math.round(bucketValue(i) * 10) / 10;
  }
  return null;
}
