// The benchmark's outputs besides the JSON: the markdown table (one row per strategy, the
// figures the README quotes) and the latency CDF chart.
import { cdfChart } from './chart.js';
import type { BenchReport, StrategyReport } from './harness.js';
import { STRATEGIES } from './harness.js';
import type { Percentiles } from './stats.js';

const ms = (p: Percentiles): string => [p.p50, p.p90, p.p99].map((x) => x.toFixed(1)).join(' / ');

const gas = (g: number): string => Math.round(g).toLocaleString('en-US');

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
    `${r.runs} runs, concurrency ${r.concurrency}, ${r.backend}, ${r.machine.cpus} × ${r.machine.cpuModel}, ` +
    `load average ${r.machine.loadAverage.start} → ${r.machine.loadAverage.end}`
  );
}

export function markdownTable(r: BenchReport): string {
  const lines = [
    settingsLine(r),
    '',
    '| strategy | latency ms p50 / p90 / p99 | ideal ms p50 / p90 / p99 | overhead ms p50 / p90 / p99 | service CPU ms / aggregation | validators\' CPU ms / aggregation | aggregations / s | signers / message, mean (min–max) | destination gas / message, Granite / before | failed |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...STRATEGIES.map((s) => row(s, r[s])),
  ];
  const w = r.warpgate.cpuMsPerAggregation;
  const p = r.perSignatureVerify.cpuMsPerAggregation;
  if (w > 0) lines.push('', `CPU per aggregation: \`perSignatureVerify\` / \`warpgate\` = ${(p / w).toFixed(1)}x`);
  const f = r.warpgate.fewestSigners;
  const leftOut = f.provenPerMessage - r.warpgate.signersPerMessage.mean;
  const all = r.warpgateAllSigners;
  lines.push(
    '',
    `Fewest signers: \`warpgate\` put ${r.warpgate.signersPerMessage.mean.toFixed(1)} signers per message of the ${f.provenPerMessage.toFixed(1)} signatures its final checks proved on the same runs ` +
      `(${leftOut.toFixed(1)} fewer: ${gas(250 * leftOut)} gas less per message under Granite, ${gas(500 * leftOut)} before); ` +
      `${f.subsetChecks} of ${r.warpgate.aggregations} aggregations needed the subset's own check, ${f.subsetCheckMsMean.toFixed(2)} ms each. ` +
      `\`warpgateAllSigners\` (every proven signature in the message): ${all.signersPerMessage.mean.toFixed(1)} signers per message of ${all.fewestSigners.provenPerMessage.toFixed(1)} proven.`,
  );
  return lines.join('\n');
}

/** The chart's path: FILE.json → FILE.svg (any other name gets .svg appended). */
export function chartPath(jsonPath: string): string {
  return jsonPath.endsWith('.json') ? `${jsonPath.slice(0, -'.json'.length)}.svg` : `${jsonPath}.svg`;
}

export function chartOf(r: BenchReport): string {
  return cdfChart(`Quorum latency, ${r.validators} validators`, settingsLine(r), [
    { label: 'ideal (quorum weight arrived)', color: '#888888', dashed: true, valuesMs: r.warpgate.samples.map((s) => s.idealMs) },
    { label: 'warpgate', color: '#1f77b4', valuesMs: r.warpgate.samples.map((s) => s.latencyMs) },
    { label: 'warpgate, every signer', color: '#2ca02c', valuesMs: r.warpgateAllSigners.samples.map((s) => s.latencyMs) },
    { label: 'perSignatureVerify', color: '#d62728', valuesMs: r.perSignatureVerify.samples.map((s) => s.latencyMs) },
  ]);
}
