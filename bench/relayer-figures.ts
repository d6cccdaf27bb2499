// The figures bench/relayer.ts reports, from what it recorded of each message: pure functions,
// so that what a figure means is written down once and tested (test/bench/relayer-figures.test.ts).
import { percentile, round } from './stats.js';

/** One Teleporter message the bench sent, and what became of it on the destination. */
export interface MessageSample {
  /** Teleporter message ID. */
  messageId: string;
  /** When the bench handed the send transaction to the source node (wall clock, ms since the epoch). */
  submittedAtMs: number;
  /** When the bench saw the send in an accepted block (its log; wall clock, polled every 100 ms). */
  sendSeenAtMs: number;
  /** The source block holding the send (its SendWarpMessage log): its timestamp, ms. */
  sourceBlockTimeMs: number;
  /** The delivery: the destination's ReceiveCrossChainMessage for this message, and its transaction. */
  delivery?: {
    txHash: string;
    blockTimeMs: number;
    gasUsed: number;
    /** The gas limit the relayer set on its transaction. */
    gasLimit: number;
    reverted: boolean;
  };
}

export interface Spread {
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function spread(samples: readonly number[], digits = 1): Spread | undefined {
  if (samples.length === 0) return undefined;
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    min: round(Math.min(...samples), digits),
    p50: round(percentile(samples, 50), digits),
    p90: round(percentile(samples, 90), digits),
    p99: round(percentile(samples, 99), digits),
    max: round(Math.max(...samples), digits),
    mean: round(mean, digits),
  };
}

export interface DirectionFigures {
  sent: number;
  delivered: number;
  /** Sent and not delivered by the bench's deadline. */
  undelivered: number;
  /** The load the bench offered: messages per second between its first and last submission. */
  offeredPerSecond: number | undefined;
  /**
   * Messages delivered per second at that load: (delivered − 1) over the time between the first
   * and the last delivery's block timestamps. Equal to the offered rate while the relayer keeps up.
   */
  deliveredPerSecond: number | undefined;
  /** Source block timestamp → delivery block timestamp, ms: both chains' own clocks. */
  latencyFromSourceBlockMs: Spread | undefined;
  /** The bench seeing the send in an accepted block → delivery block timestamp, ms (the bench's clock, then the chain's). */
  latencyFromSendSeenMs: Spread | undefined;
  /** Receipt gasUsed of each delivery transaction. */
  gasPerDelivery: Spread | undefined;
  /** The gas limit the relayer set, mean. */
  gasLimitMean: number | undefined;
  revertedDeliveries: number;
}

function ratePerSecond(count: number, firstMs: number, lastMs: number): number | undefined {
  return count >= 2 && lastMs > firstMs ? round(((count - 1) * 1000) / (lastMs - firstMs), 2) : undefined;
}

export function directionFigures(samples: readonly MessageSample[]): DirectionFigures {
  const delivered = samples.filter((s): s is MessageSample & { delivery: NonNullable<MessageSample['delivery']> } => s.delivery !== undefined);
  const submitted = samples.map((s) => s.submittedAtMs);
  const deliveredAt = delivered.map((s) => s.delivery.blockTimeMs);
  return {
    sent: samples.length,
    delivered: delivered.length,
    undelivered: samples.length - delivered.length,
    offeredPerSecond: samples.length ? ratePerSecond(samples.length, Math.min(...submitted), Math.max(...submitted)) : undefined,
    deliveredPerSecond: delivered.length ? ratePerSecond(delivered.length, Math.min(...deliveredAt), Math.max(...deliveredAt)) : undefined,
    latencyFromSourceBlockMs: spread(delivered.map((s) => s.delivery.blockTimeMs - s.sourceBlockTimeMs)),
    latencyFromSendSeenMs: spread(delivered.map((s) => s.delivery.blockTimeMs - s.sendSeenAtMs)),
    gasPerDelivery: spread(delivered.map((s) => s.delivery.gasUsed), 0),
    gasLimitMean: delivered.length ? round(delivered.reduce((a, s) => a + s.delivery.gasLimit, 0) / delivered.length, 0) : undefined,
    revertedDeliveries: delivered.filter((s) => s.delivery.reverted).length,
  };
}

/** A Prometheus text exposition as series (`name{labels}`, as printed) → value. */
export function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    const value = Number(line.slice(cut + 1));
    if (cut > 0 && Number.isFinite(value)) series.set(line.slice(0, cut), value);
  }
  return series;
}

/**
 * The sum over the series of metric `name` whose labels include every `label="value"` given,
 * after minus before (counters and histogram sums/counts only grow).
 */
export function metricDelta(before: Map<string, number>, after: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let total = 0;
  for (const [key, value] of after) {
    const brace = key.indexOf('{');
    const metric = brace < 0 ? key : key.slice(0, brace);
    if (metric !== name || !wanted.every((w) => key.includes(w))) continue;
    total += value - (before.get(key) ?? 0);
  }
  return total;
}

/**
 * The relayer's log lines that give a `reason` (a failed attempt, a validator refusing to sign),
 * between `fromMs` and `toMs` (pino's `time`), counted by message and reason: numbers become N
 * and only the reason's first clause is kept, so that one cause is one entry.
 */
export function reasonsInLog(lines: readonly string[], fromMs: number, toMs: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of lines) {
    let entry: { time?: unknown; msg?: unknown; reason?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (typeof entry.reason !== 'string' || typeof entry.time !== 'number' || entry.time < fromMs || entry.time > toMs) continue;
    const reason = entry.reason.split(';')[0]!.replace(/\d+(\.\d+)?/g, 'N');
    const key = `${String(entry.msg)}: ${reason}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
