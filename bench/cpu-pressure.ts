// How long, in all, some task on the machine was runnable but had no core: Linux's pressure stall
// information (/proc/pressure/cpu, "some" line, cumulative µs). Read around each timed request, it
// says whether a slow run coincided with a machine short of cores (the service's threads, the
// validators' processes and the bench's own compete for them here) or not.
import { readProc } from './proc.js';
import { percentile, round } from './stats.js';

/** The `total=` of the "some" line of a /proc/pressure/cpu text, µs. */
export function pressureSomeTotalUs(text: string): number {
  const line = text.split('\n').find((l) => l.startsWith('some '));
  const total = line?.match(/\btotal=(\d+)\b/)?.[1];
  if (total === undefined) throw new Error(`not a /proc/pressure/cpu text: ${text.slice(0, 80)}`);
  return Number(total);
}

/** The machine's CPU stall total so far, µs; undefined where Linux has no PSI (or not Linux). */
export function cpuStallUs(): number | undefined {
  const text = readProc('/proc/pressure/cpu');
  return text === undefined ? undefined : pressureSomeTotalUs(text);
}

/** The share of runs, slowest first by overhead, whose stall is averaged apart. */
const SLOWEST_SHARE = 0.05;

/**
 * Over a strategy's runs: the median stall, and the mean stall of its slowest 5% of runs by
 * overhead (at least one run). Far apart, the slow runs were the ones the machine ran short of
 * cores in. Undefined when no run has a stall (no PSI).
 */
export function cpuStallSummary(runs: readonly { overheadMs: number; cpuStallMs?: number }[]): { p50: number; slowestRunsMean: number } | undefined {
  const measured = runs.filter((r): r is { overheadMs: number; cpuStallMs: number } => r.cpuStallMs !== undefined);
  if (measured.length === 0) return undefined;
  const slowest = [...measured].sort((a, b) => b.overheadMs - a.overheadMs).slice(0, Math.max(1, Math.round(measured.length * SLOWEST_SHARE)));
  return {
    p50: round(percentile(measured.map((r) => r.cpuStallMs), 50)),
    slowestRunsMean: round(slowest.reduce((sum, r) => sum + r.cpuStallMs, 0) / slowest.length),
  };
}
