// Percentiles as the benchmark reports them: nearest rank (the smallest sample with at least p%
// of the samples at or below it), so every figure is a latency that was actually measured. With
// 20 runs, p99 is the slowest run.

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
}

export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError('percentile of no samples');
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.ceil((p / 100) * sorted.length) - 1]!;
}

/** `x` to `digits` decimals: the bench's figures carry no more than they measure (ms to µs by default). */
export function round(x: number, digits = 3): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

export function summarize(samples: readonly number[]): Percentiles {
  return { p50: round(percentile(samples, 50)), p90: round(percentile(samples, 90)), p99: round(percentile(samples, 99)) };
}
