// The benchmark's outputs besides the JSON: the markdown table (one row per strategy measured,
// the figures the docs quote), the figures derived from two strategies of the same run, and
// the latency CDF chart.
import { cdfChart, timelineChart, type Series } from './chart.js';
import type { BenchReport, StrategyReport } from './harness.js';
import { STRATEGIES, UNVERIFIABLE, type Strategy } from './strategies.js';
import { round, summarize, type Percentiles } from './stats.js';

const ms = (p: Percentiles): string => [p.p50, p.p90, p.p99].map((x) => x.toFixed(1)).join(' / ');

const gas = (g: number): string => Math.round(g).toLocaleString('en-US');

/**
 * Differences and ratios between strategies of one run (so they hold on a noisy machine). Each is
 * present only when the run measured both of its strategies (and the divisor is not 0).
 */
export interface DerivedFigures {
  /** `warpgate`'s overhead minus the `floor`'s, ms: what warpgate adds above the path's own cost. */
  overheadAboveFloorMs?: { p50: number; p99: number };
  /**
   * The p50 overhead above the floor in two parts, by the service's own clock: `signersInLater`,
   * how much later the signers' weight was read in (answers waiting for a busy CPU, or the main
   * thread); `serviceOwn`, how much more of the service's own time the aggregation took (the
   * checks after the signatures were in, and the decision). Differences of medians: close to the
   * p50 overhead above the floor, not equal to it.
   */
  overheadAboveFloorSplitMs?: { signersInLater: number; serviceOwn: number };
  /**
   * Run by run: each `warpgate` run's overhead minus the `floor`'s run of the same message and
   * injected delays (runs that failed in either are left out), ms. With few runs a p99 is one
   * run's hiccup; these say how far apart the two strategies are on most runs.
   */
  overheadAboveFloorPerRunMs?: { p50: number; p90: number };
  /** Service CPU per aggregation, `warpgate` / `floor`. */
  cpuWarpgateOverFloor?: number;
  /** Service CPU per aggregation, `perSignatureVerify` / `warpgate`. */
  cpuPerSignatureVerifyOverWarpgate?: number;
  /** The real icm-services against warpgate, same run: its CPU per aggregation (its process, all threads) / warpgate's. */
  cpuIcmServicesOverWarpgate?: number;
  /** Latency p50 and p99, icm-services / warpgate. */
  latencyP50IcmServicesOverWarpgate?: number;
  latencyP99IcmServicesOverWarpgate?: number;
  /** Aggregations per second, warpgate / icm-services. */
  throughputWarpgateOverIcmServices?: number;
  /** Aggregations per second, `warpgate` / `floor`. */
  throughputWarpgateOverFloor?: number;
  /**
   * Service CPU per aggregation on the main thread and on the other threads (BLS workers, V8's GC
   * helpers), for `warpgate` and the `floor`: where the CPU between them goes.
   */
  cpuSplitMs?: Partial<Record<'warpgate' | 'floor', { mainThread: number; otherThreads: number }>>;
}

const ratio = (a: number, b: number): number | undefined => (b > 0 ? round(a / b, 2) : undefined);

type Measured = Partial<Record<Strategy, StrategyReport>>;

export function derivedFigures(r: Measured): DerivedFigures {
  const { warpgate: w, floor: f, perSignatureVerify: p, icmServices: icm } = r;
  const d: DerivedFigures = {};
  if (w && f) {
    d.overheadAboveFloorMs = { p50: round(w.overheadMs.p50 - f.overheadMs.p50, 2), p99: round(w.overheadMs.p99 - f.overheadMs.p99, 2) };
    const [ws, fs] = [w.service, f.service];
    if (ws.signersInMs && fs.signersInMs && ws.ownMs && fs.ownMs) {
      d.overheadAboveFloorSplitMs = {
        signersInLater: round(ws.signersInMs.p50 - fs.signersInMs.p50, 2),
        serviceOwn: round(ws.ownMs.p50 - fs.ownMs.p50, 2),
      };
    }
    const floorRuns = new Map(f.samples.map((s) => [s.run, s.overheadMs]));
    const perRun = w.samples.flatMap((s) => {
      const floorOverhead = floorRuns.get(s.run);
      return floorOverhead === undefined ? [] : [s.overheadMs - floorOverhead];
    });
    if (perRun.length > 0) {
      const { p50, p90 } = summarize(perRun);
      d.overheadAboveFloorPerRunMs = { p50: round(p50, 2), p90: round(p90, 2) };
    }
    const cpu = ratio(w.cpuMsPerAggregation, f.cpuMsPerAggregation);
    if (cpu !== undefined) d.cpuWarpgateOverFloor = cpu;
    const throughput = ratio(w.throughputPerSec, f.throughputPerSec);
    if (throughput !== undefined) d.throughputWarpgateOverFloor = throughput;
  }
  if (w && p) {
    const cpu = ratio(p.cpuMsPerAggregation, w.cpuMsPerAggregation);
    if (cpu !== undefined) d.cpuPerSignatureVerifyOverWarpgate = cpu;
  }
  if (w && icm) {
    const figures: [keyof DerivedFigures, number | undefined][] = [
      ['cpuIcmServicesOverWarpgate', ratio(icm.cpuMsPerAggregation, w.cpuMsPerAggregation)],
      ['latencyP50IcmServicesOverWarpgate', ratio(icm.latencyMs.p50, w.latencyMs.p50)],
      ['latencyP99IcmServicesOverWarpgate', ratio(icm.latencyMs.p99, w.latencyMs.p99)],
      ['throughputWarpgateOverIcmServices', ratio(w.throughputPerSec, icm.throughputPerSec)],
    ];
    for (const [key, value] of figures) if (value !== undefined) (d as Record<string, unknown>)[key] = value;
  }
  for (const [name, s] of [['warpgate', w], ['floor', f]] as const) {
    if (s?.mainThreadCpuMsPerAggregation === undefined) continue;
    const mainThread = s.mainThreadCpuMsPerAggregation;
    (d.cpuSplitMs ??= {})[name] = { mainThread, otherThreads: round(Math.max(0, s.cpuMsPerAggregation - mainThread), 2) };
  }
  return d;
}

/** The derived figures as the lines under the table. */
export function derivedLines(d: DerivedFigures): string[] {
  const lines: string[] = [];
  if (d.overheadAboveFloorMs) {
    const { p50, p99 } = d.overheadAboveFloorMs;
    lines.push(`Overhead above the floor, \`warpgate\` − \`floor\`: ${p50.toFixed(1)} ms p50, ${p99.toFixed(1)} ms p99`);
  }
  if (d.overheadAboveFloorPerRunMs) {
    const { p50, p90 } = d.overheadAboveFloorPerRunMs;
    lines.push(`Run by run (same message and delays), \`warpgate\` − \`floor\`: ${p50.toFixed(1)} ms p50, ${p90.toFixed(1)} ms p90`);
  }
  if (d.overheadAboveFloorSplitMs) {
    const { signersInLater, serviceOwn } = d.overheadAboveFloorSplitMs;
    lines.push(
      `By the service's clock (p50), \`warpgate\` − \`floor\`: signers' weight read in ${signersInLater.toFixed(1)} ms later, ` +
        `the service's own time (checks, decision) ${serviceOwn.toFixed(1)} ms longer`,
    );
  }
  if (d.cpuWarpgateOverFloor !== undefined) lines.push(`CPU per aggregation: \`warpgate\` / \`floor\` = ${d.cpuWarpgateOverFloor.toFixed(2)}x`);
  if (d.cpuPerSignatureVerifyOverWarpgate !== undefined) {
    lines.push(`CPU per aggregation: \`perSignatureVerify\` / \`warpgate\` = ${d.cpuPerSignatureVerifyOverWarpgate.toFixed(1)}x`);
  }
  if (d.throughputWarpgateOverFloor !== undefined) lines.push(`Throughput: \`warpgate\` / \`floor\` = ${d.throughputWarpgateOverFloor.toFixed(2)}x`);
  if (d.latencyP50IcmServicesOverWarpgate !== undefined && d.latencyP99IcmServicesOverWarpgate !== undefined) {
    lines.push(
      `Latency: \`icmServices\` / \`warpgate\` = ${d.latencyP50IcmServicesOverWarpgate.toFixed(2)}x p50, ${d.latencyP99IcmServicesOverWarpgate.toFixed(2)}x p99`,
    );
  }
  if (d.cpuIcmServicesOverWarpgate !== undefined) lines.push(`CPU per aggregation: \`icmServices\` / \`warpgate\` = ${d.cpuIcmServicesOverWarpgate.toFixed(1)}x`);
  if (d.throughputWarpgateOverIcmServices !== undefined) {
    lines.push(`Throughput: \`warpgate\` / \`icmServices\` = ${d.throughputWarpgateOverIcmServices.toFixed(2)}x`);
  }
  const split = Object.entries(d.cpuSplitMs ?? {}).map(([name, c]) => `\`${name}\` ${c.mainThread.toFixed(1)} + ${c.otherThreads.toFixed(1)} ms`);
  if (split.length > 0) lines.push(`Service CPU per aggregation, main thread + other threads (BLS workers, GC helpers): ${split.join(', ')}`);
  return lines;
}

/** The strategies a report holds, in STRATEGIES order. */
export function measured(r: Measured): [Strategy, StrategyReport][] {
  return STRATEGIES.flatMap((name): [Strategy, StrategyReport][] => {
    const s = r[name];
    return s ? [[name, s]] : [];
  });
}

function row(name: string, s: StrategyReport): string {
  const signers = `${s.signersPerMessage.mean.toFixed(1)} (${s.signersPerMessage.min}–${s.signersPerMessage.max})`;
  return (
    `| \`${name}\` | ${ms(s.latencyMs)} | ${ms(s.idealMs)} | ${ms(s.overheadMs)} | ${s.cpuMsPerAggregation.toFixed(1)} | ${s.signerHostsCpuMsPerAggregation.toFixed(1)} | ` +
    `${s.throughputPerSec.toFixed(1)} | ${signers} | ${gas(s.destinationGasPerMessage.granite)} / ${gas(s.destinationGasPerMessage.preGranite)} | ${s.failures} |`
  );
}

export function settingsLine(r: BenchReport): string {
  return (
    `${r.validators} validators (${r.weights} weights, ${r.transport === 'p2p' ? 'avalanchego nodes over p2p' : 'signer peers over WebSocket'}), delays lognormal median ${r.latency.medianMs} ms σ ${r.latency.sigma}, ` +
    `${r.offlinePercent}% offline, ${r.byzantinePercent}% byzantine, quorum ${r.quorumPercentage}% + ${r.quorumPercentageBuffer}%, ` +
    `fan-out extra ${r.fanOutExtraPercent === 'default' ? 'default' : `${r.fanOutExtraPercent}%`}, ` +
    (r.signatureCacheMax === 'default' ? '' : `signature cache ${r.signatureCacheMax} signatures, `) +
    (r.workers === 'default' ? '' : `${r.workers} BLS worker thread${r.workers === 1 ? '' : 's'}, `) +
    (r.ioShards === undefined || r.ioShards === 'default' ? '' : `${r.ioShards} p2p I/O shard${r.ioShards === 1 ? '' : 's'}, `) +
    `${r.runs} runs, concurrency ${r.concurrency}, ${r.backend}, ${r.machine.cpus} × ${r.machine.cpuModel}, ` +
    `load average ${r.machine.loadAverage.start} → ${r.machine.loadAverage.end}`
  );
}

export function markdownTable(r: BenchReport): string {
  const strategies = measured(r);
  const lines = [
    settingsLine(r),
    '',
    '| strategy | latency ms p50 / p90 / p99 | ideal ms p50 / p90 / p99 | overhead ms p50 / p90 / p99 | service CPU ms / aggregation | validators\' CPU ms / aggregation | aggregations / s | signers / message, mean (min–max) | destination gas / message, Granite / before | failed |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...strategies.map(([name, s]) => row(name, s)),
  ];
  for (const [name, s] of strategies) {
    if (s.answersVerified && !UNVERIFIABLE.has(name)) continue;
    lines.push(
      '',
      `\`${name}\`: signature verification skipped. Its signed messages carry a placeholder aggregate (no signature check, no aggregation: bench/floor.ts); ` +
        'only their signers, network and quorum weight were checked. Every other strategy\'s messages were verified as avalanchego would.',
    );
  }
  // Markdown line breaks (two trailing spaces) keep them one per line.
  const derived = derivedLines(derivedFigures(r));
  if (derived.length > 0) lines.push('', derived.join('  \n'));
  const stalls = strategies.flatMap(([name, s]) => (s.cpuStallMs ? [`\`${name}\` ${s.cpuStallMs.p50.toFixed(1)} / ${s.cpuStallMs.slowestRunsMean.toFixed(1)} ms`] : []));
  if (stalls.length > 0) {
    lines.push('', `The machine short of cores during a run (some task waiting for one, /proc/pressure/cpu), p50 / mean of the slowest 5% of runs: ${stalls.join(', ')}`);
  }
  const icm = r.icmServices;
  if (icm?.versions) {
    const v = icm.versions;
    lines.push(
      '',
      `\`icmServices\`: the real icm-services signature-aggregator, commit ${v.icmServicesCommit} (avalanchego ${v.avalanchego}, ${v.go}), ` +
        `its process's CPU (all threads) and peak resident memory ${icm.service.peakRssMb.toFixed(0)} MB` +
        (r.pChainHeight !== undefined && r.pChainHeight !== 'default' ? `; both services signed at P-Chain height ${r.pChainHeight}` : '') +
        (icm.buildSeconds === undefined ? '' : `; built in ${icm.buildSeconds} s for this run`) +
        '.',
    );
  }
  const w = r.warpgate;
  if (w?.fewestSigners) {
    const f = w.fewestSigners;
    const leftOut = readyPerMessage(w) - w.signersPerMessage.mean;
    const all = r.warpgateAllSigners;
    lines.push(
      '',
      `Fewest signers: \`warpgate\` put ${w.signersPerMessage.mean.toFixed(1)} signers per message of the ${readyPerMessage(w).toFixed(1)} signatures ready at its final checks on the same runs ` +
        `(${leftOut.toFixed(1)} fewer: ${gas(250 * leftOut)} gas less per message under Granite, ${gas(500 * leftOut)} before); ` +
        `${f.subsetChecks} of ${w.aggregations} aggregations checked the fewest signers' sum instead of the whole, ${f.subsetCheckMsMean.toFixed(2)} ms each (wall time in the worker).` +
        (all
          ? ` \`warpgateAllSigners\` (every signature ready in the message): ${all.signersPerMessage.mean.toFixed(1)} signers per message of ${readyPerMessage(all).toFixed(1)} ready.`
          : ''),
    );
    const checks = w.finalChecks;
    if (checks && checks.tasks > 0) {
      lines.push(
        '',
        `Final checks: \`warpgate\` made ${checks.checks} in ${checks.tasks} worker tasks ` +
          `(${(checks.checks / checks.tasks).toFixed(2)} per task: the checks of aggregations that waited for a thread at the same time are made together).`,
      );
    }
  }
  return lines.join('\n');
}

/** The chart's path: FILE.json → FILE.svg (any other name gets .svg appended). */
/** Signatures ready at the final checks per message; older files name it provenPerMessage (harness.ts). */
function readyPerMessage(s: StrategyReport): number {
  const f = s.fewestSigners as (StrategyReport['fewestSigners'] & { provenPerMessage?: number }) | undefined;
  return f?.readyPerMessage ?? f?.provenPerMessage ?? s.signersPerMessage.mean;
}

export function chartPath(jsonPath: string): string {
  return jsonPath.endsWith('.json') ? `${jsonPath.slice(0, -'.json'.length)}.svg` : `${jsonPath}.svg`;
}

/** Each strategy's line in the chart. */
const LINES: Record<Strategy, Omit<Series, 'valuesMs'>> = {
  warpgate: { label: 'warpgate', color: '#1f77b4' },
  warpgateAllSigners: { label: 'warpgate, every signer', color: '#2ca02c' },
  perSignatureVerify: { label: 'perSignatureVerify', color: '#d62728' },
  floor: { label: 'floor (no crypto; not valid)', color: '#9467bd' },
  icmServices: { label: 'icm-services (real binary)', color: '#ff7f0e' },
};

export function chartOf(r: BenchReport): string {
  const strategies = measured(r);
  const first = strategies[0];
  if (!first) throw new RangeError('a chart needs at least one strategy measured');
  // Same messages, same delays: every strategy has the same ideal.
  return cdfChart(`Quorum latency, ${r.validators} validators`, settingsLine(r), [
    { label: 'ideal (quorum weight arrived)', color: '#888888', dashed: true, valuesMs: first[1].samples.map((s) => s.idealMs) },
    ...strategies.map(([name, s]) => ({ ...LINES[name], valuesMs: s.samples.map((x) => x.latencyMs) })),
  ]);
}

/** The memory chart's path: FILE.json → FILE-rss.svg. */
export function rssChartPath(jsonPath: string): string {
  return `${jsonPath.endsWith('.json') ? jsonPath.slice(0, -'.json'.length) : jsonPath}-rss.svg`;
}

/** The service's resident memory over the timed runs, one line per strategy measured, and the bound docs/performance.md states. */
export function rssChartOf(r: BenchReport, boundMb?: number): string {
  const strategies = measured(r);
  if (strategies.length === 0) throw new RangeError('a chart needs at least one strategy measured');
  return timelineChart(
    `Service resident memory, ${r.validators} validators, ${r.runs} runs`,
    settingsLine(r),
    { x: 'seconds into the timed runs', y: 'resident memory, MB' },
    strategies.map(([name, s]) => ({ label: LINES[name].label, color: LINES[name].color, points: s.service.rssTimelineMb })),
    boundMb === undefined ? undefined : { label: `bound: ${boundMb} MB`, value: boundMb },
  );
}
