// The benchmark's pure parts: flags, seeded draws, weights, the ideal, percentiles and the chart.
import { describe, expect, it } from 'vitest';
import { BenchArgsError, DEFAULT_OPTIONS, USAGE, parseArgs } from '../../bench/args.js';
import { cdfChart, niceStep, timelineChart, wrapText, xScaleFor } from '../../bench/chart.js';
import { choose, lognormalDelay, uniform } from '../../bench/random.js';
import { chartOf, chartPath, derivedFigures, markdownTable } from '../../bench/report.js';
import { statCpuMs, threadCpuMs } from '../../bench/thread-cpu.js';
import { cpuStallSummary, cpuStallUs, pressureSomeTotalUs } from '../../bench/cpu-pressure.js';
import type { BenchReport, StrategyReport } from '../../bench/harness.js';
import { DEFAULT_STRATEGIES, STRATEGIES } from '../../bench/strategies.js';
import { destinationGas } from '../../bench/warp-gas.js';
import { BenchScenarioError, buildScenario, idealLatency, weightsFor } from '../../bench/scenario.js';
import { percentile, summarize } from '../../bench/stats.js';
import { requiredWeight } from '../../src/validators/quorum.js';

describe('bench flags', () => {
  it('defaults to the documented settings', () => {
    const o = parseArgs([]);
    expect(o).toMatchObject({
      validators: 100,
      transport: 'ws',
      weights: 'skewed',
      latency: { medianMs: 40, sigma: 0.5 },
      offlinePercent: 0,
      byzantinePercent: 0,
      quorumPercentage: 67,
      quorumPercentageBuffer: 0,
      runs: 20,
      concurrency: 1,
      backend: 'blst',
      json: undefined,
      signatureCacheMax: undefined,
      workers: undefined,
      ioShards: undefined,
      strategies: ['warpgate', 'warpgateAllSigners', 'perSignatureVerify', 'floor'],
    });
    expect(o).toEqual(DEFAULT_OPTIONS);
  });

  it('reads every flag, with a space or an equals sign', () => {
    const o = parseArgs([
      '--validators', '1000', '--weights=uniform', '--latency', 'lognormal:25.5:0.8', '--offline', '5', '--byzantine=2.5',
      '--quorum', '60', '--buffer', '7', '--runs', '50', '--concurrency', '32', '--backend', 'noble', '--json', 'out/r.json',
      '--seed', 's', '--warmup', '0', '--cpu-prof', 'prof', '--signer-processes', '3', '--fan-out-extra', '20',
      '--validators-nice', '19', '--service-heap-mb', '512', '--transport', 'p2p', '--signature-cache-max', '50000', '--workers', '8', '--io-shards', '4', '--strategies', 'floor,warpgate',
    ]);
    expect(o).toEqual({
      validators: 1000, transport: 'p2p', weights: 'uniform', latency: { medianMs: 25.5, sigma: 0.8 }, offlinePercent: 5, byzantinePercent: 2.5,
      quorumPercentage: 60, quorumPercentageBuffer: 7, runs: 50, concurrency: 32, backend: 'noble', json: 'out/r.json',
      seed: 's', warmup: 0, cpuProfileDir: 'prof', signerProcesses: 3, validatorsNice: 19, fanOutExtraPercent: 20, serviceHeapMb: 512,
      signatureCacheMax: 50000, workers: 8, ioShards: 4, strategies: ['warpgate', 'floor'],
    });
  });

  it('--strategies measures the named ones in the usual order, and the usage names every strategy', () => {
    expect(parseArgs(['--strategies', 'perSignatureVerify']).strategies).toEqual(['perSignatureVerify']);
    expect(parseArgs(['--strategies=floor,perSignatureVerify,warpgateAllSigners,warpgate']).strategies).toEqual([...DEFAULT_STRATEGIES]);
    expect(parseArgs(['--transport', 'p2p', '--strategies=floor,icmServices,warpgate']).strategies).toEqual(['warpgate', 'icmServices', 'floor']);
    // Parsing one run's flags does not change the next run's defaults.
    parseArgs(['--strategies', 'floor']);
    expect(parseArgs([]).strategies).toEqual([...DEFAULT_STRATEGIES]);
    for (const s of STRATEGIES) expect(USAGE).toContain(s);
    expect(USAGE).toContain('--strategies');
    expect(USAGE).toContain('--signature-cache-max');
    expect(USAGE).toContain('--workers');
    expect(USAGE).toContain('--io-shards');
    // Steady state takes thousands of warm-ups (docs/performance.md "How the bench measures").
    expect(parseArgs(['--warmup', '3000']).warmup).toBe(3000);
  });

  it.each([
    ['warpgate,fastest', /unknown strategy 'fastest'; known: warpgate, icmServices, warpgateAllSigners, perSignatureVerify, floor/],
    ['Floor', /unknown strategy 'Floor'/],
    ['floor,floor', /'floor' is named twice/],
    ['warpgate,', /comma-separated list/],
    ['', /comma-separated list/],
  ])('--strategies %j is refused: %s', (value, message) => {
    expect(() => parseArgs(['--strategies', value])).toThrow(message);
    try {
      parseArgs(['--strategies', value]);
    } catch (err) {
      expect(err).toBeInstanceOf(BenchArgsError);
      expect((err as BenchArgsError).flag).toBe('--strategies');
    }
  });

  it.each([
    [['--validators', '1'], '--validators'],
    [['--validators', 'many'], '--validators'],
    [['--weights', 'zipf'], '--weights'],
    [['--latency', 'normal:40:1'], '--latency'],
    [['--offline', '101'], '--offline'],
    [['--quorum', '90', '--buffer', '20'], '--buffer'],
    [['--offline', '60', '--byzantine', '50'], '--byzantine'],
    [['--backend', 'mcl'], '--backend'],
    [['--transport', 'udp'], '--transport'],
    [['--fan-out-extra', '101'], '--fan-out-extra'],
    [['--validators-nice', '20'], '--validators-nice'],
    [['--validators-nice', '-5'], '--validators-nice'],
    [['--signature-cache-max', '-1'], '--signature-cache-max'],
    [['--signature-cache-max', '100000001'], '--signature-cache-max'],
    [['--workers', '0'], '--workers'],
    [['--workers', '65'], '--workers'],
    [['--transport', 'p2p', '--io-shards', '65'], '--io-shards'],
    // The WebSocket signers dial the service: there is nothing to shard.
    [['--io-shards', '2'], '--io-shards'],
    [['--warmup', '100001'], '--warmup'],
    [['--warmup', '-1'], '--warmup'],
    [['--runs'], '--runs'],
    [['--fast'], '--fast'],
  ])('refuses %j naming %s', (argv, flag) => {
    try {
      parseArgs(argv);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(BenchArgsError);
      expect((err as BenchArgsError).flag).toBe(flag);
    }
  });
});

describe('seeded draws', () => {
  it('are uniform in (0, 1), reproducible, and differ by label and seed', () => {
    const draws = Array.from({ length: 4000 }, (_, i) => uniform('s', i));
    expect(Math.min(...draws)).toBeGreaterThan(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    expect(mean).toBeGreaterThan(0.47);
    expect(mean).toBeLessThan(0.53);
    // Each tenth of the interval gets its share.
    for (let d = 0; d < 10; d++) {
      const share = draws.filter((x) => x >= d / 10 && x < (d + 1) / 10).length / draws.length;
      expect(share).toBeGreaterThan(0.07);
      expect(share).toBeLessThan(0.13);
    }
    expect(uniform('s', 7)).toBe(draws[7]);
    expect(uniform('t', 7)).not.toBe(draws[7]);
  });

  it('give lognormal delays around the median with the requested spread', () => {
    const model = { medianMs: 40, sigma: 0.5 };
    const delays = Array.from({ length: 4000 }, (_, i) => lognormalDelay(model, 's', i));
    const median = percentile(delays, 50);
    expect(median).toBeGreaterThan(37);
    expect(median).toBeLessThan(43);
    // e^(0.5 · 1.2816) = 1.90: the 90th percentile sits near 76 ms.
    expect(percentile(delays, 90)).toBeGreaterThan(70);
    expect(percentile(delays, 90)).toBeLessThan(82);
    expect(lognormalDelay({ medianMs: 40, sigma: 0 }, 's', 1)).toBeCloseTo(40, 9);
  });

  it('choose picks distinct indices, reproducibly', () => {
    const picked = choose(100, 30, 's', 'x');
    expect(new Set(picked).size).toBe(30);
    expect(picked.every((i) => i >= 0 && i < 100)).toBe(true);
    expect(choose(100, 30, 's', 'x')).toEqual(picked);
    expect(choose(100, 30, 's', 'y')).not.toEqual(picked);
  });
});

describe('scenario', () => {
  it('uniform weights are equal; skewed ones put about half the stake on a tenth of the validators', () => {
    expect(new Set(weightsFor(50, 'uniform', 's')).size).toBe(1);
    const skewed = weightsFor(1000, 'skewed', 's').sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
    const total = skewed.reduce((a, b) => a + b, 0n);
    const topTenth = skewed.slice(0, 100).reduce((a, b) => a + b, 0n);
    const share = Number((topTenth * 1000n) / total) / 1000;
    expect(share).toBeGreaterThan(0.35);
    expect(share).toBeLessThan(0.6);
    expect(skewed[0]! / skewed[999]!).toBeGreaterThan(20n);
  });

  it('the ideal is the arrival that completes the target weight', () => {
    const answers = [
      { delayMs: 30, weight: 10n },
      { delayMs: 10, weight: 50n },
      { delayMs: 20, weight: 5n },
      { delayMs: 40, weight: 35n },
    ];
    expect(idealLatency(answers, 50n)).toBe(10);
    expect(idealLatency(answers, 51n)).toBe(20);
    expect(idealLatency(answers, 66n)).toBe(40);
    expect(() => idealLatency(answers, 101n)).toThrow(BenchScenarioError);
  });

  it('builds offline and byzantine validators, distinct messages and the ideals from the honest delays', () => {
    const o = { ...DEFAULT_OPTIONS, validators: 40, weights: 'uniform' as const, offlinePercent: 10, byzantinePercent: 5, runs: 4, warmup: 1 };
    const s = buildScenario(o);
    expect(s.validators.filter((v) => v.role === 'offline')).toHaveLength(4);
    expect(s.validators.filter((v) => v.role === 'byzantine')).toHaveLength(2);
    expect(new Set(s.validators.map((v) => v.publicKeyHex)).size).toBe(40);
    expect(new Set(s.messagesHex).size).toBe(5);
    expect(s.targetWeight).toBe(requiredWeight(s.totalWeight, 67));
    s.idealMs.forEach((ideal, m) => {
      const honest = s.validators.filter((v) => v.role === 'honest').map((v) => s.delaysMs[v.index]![m]!);
      // 27 of 40 equal weights reach 67%: the 27th honest arrival.
      expect(ideal).toBe(honest.sort((a, b) => a - b)[26]);
    });
    expect(buildScenario(o).delaysMs).toEqual(s.delaysMs);
  });

  it('refuses a scenario whose honest online weight cannot reach quorum + buffer', () => {
    // 8 of 20 equal weights offline: the rest hold exactly 60%.
    const o = { ...DEFAULT_OPTIONS, validators: 20, weights: 'uniform' as const, offlinePercent: 40, runs: 1, warmup: 0 };
    expect(() => buildScenario(o)).toThrow(/out of reach/);
    expect(() => buildScenario({ ...o, quorumPercentage: 55, quorumPercentageBuffer: 6 })).toThrow(BenchScenarioError);
    expect(() => buildScenario({ ...o, quorumPercentage: 60 })).not.toThrow();
    expect(() => buildScenario({ ...o, offlinePercent: 20, byzantinePercent: 20 })).toThrow(BenchScenarioError);
  });
});

describe('statistics', () => {
  it('uses nearest-rank percentiles, so every figure was measured', () => {
    const xs = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(10);
    expect(percentile(xs, 90)).toBe(18);
    expect(percentile(xs, 99)).toBe(20);
    expect(summarize([3, 1, 2])).toEqual({ p50: 2, p90: 3, p99: 3 });
    expect(() => percentile([], 50)).toThrow(RangeError);
  });
});

describe('chart', () => {
  it('draws one step curve per series, with escaped labels', () => {
    const svg = cdfChart('t <1>', 'sub & title', [
      { label: 'ideal', color: '#888888', dashed: true, valuesMs: [10, 20, 30] },
      { label: 'a', color: '#1f77b4', valuesMs: [12, 25, 31] },
      { label: 'b', color: '#d62728', valuesMs: [15, 40, 90] },
    ]);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<path /g)).toHaveLength(3);
    expect(svg).toContain('t &lt;1&gt;');
    expect(svg).toContain('sub &amp; title');
    expect(svg).not.toContain('NaN');
  });

  it('switches to a log axis when latencies span a decade, with 1-2-5 ticks around the data', () => {
    const linear = xScaleFor([40, 60, 120]);
    expect(linear.log).toBe(false);
    expect(linear.ticks[0]).toBe(0);
    const log = xScaleFor([45, 110, 804]);
    expect(log.log).toBe(true);
    expect(log.ticks).toEqual([20, 50, 100, 200, 500, 1000]);
    expect(log.at(20)).toBe(0);
    expect(log.at(1000)).toBe(1);
    expect(log.at(100)).toBeCloseTo(Math.log10(5) / Math.log10(50), 9);
    const svg = cdfChart('t', 's', [{ label: 'a', color: '#000000', valuesMs: [45, 110, 804] }]);
    expect(svg).toContain('(log scale)');
  });

  it('wraps a long subtitle into lines of the given width', () => {
    const lines = wrapText('aaa bbb ccc ddd eee', 8);
    expect(lines).toEqual(['aaa bbb', 'ccc ddd', 'eee']);
    expect(wrapText('', 8)).toEqual([]);
  });

  it('picks 1-2-5 tick steps and puts the chart next to the JSON', () => {
    expect(niceStep(100)).toBe(20);
    expect(niceStep(7)).toBe(2);
    expect(niceStep(450)).toBe(100);
    expect(chartPath('bench/results/r.json')).toBe('bench/results/r.svg');
    expect(chartPath('out')).toBe('out.svg');
  });
});

describe('destination gas (the Warp precompile’s predicate gas)', () => {
  it('is the base, 32-byte chunks of the message and its 0xff delimiter, and a price per signer', () => {
    // 300 bytes + delimiter fit 10 chunks; 10 signers.
    expect(destinationGas(300, 10)).toEqual({ granite: 125_000 + 512 * 10 + 250 * 10, preGranite: 200_000 + 3_200 * 10 + 500 * 10 });
    // A message that fills whole chunks needs one more for the delimiter.
    expect(destinationGas(320, 1).granite - destinationGas(319, 1).granite).toBe(512);
    // One signer fewer saves its price, nothing else.
    expect(destinationGas(500, 300).granite - destinationGas(500, 299).granite).toBe(250);
  });
});

/** A strategy's report with the figures a test names; the rest plausible and fixed. */
function strategyReport(f: {
  overheadP50: number;
  overheadP99: number;
  cpu: number;
  throughput: number;
  answersVerified?: boolean;
  /** The service's clock, p50: signers' weight read in, and its own time. */
  signersInP50?: number;
  ownP50?: number;
}): StrategyReport {
  const p = (p50: number, p99: number) => ({ p50, p90: (p50 + p99) / 2, p99 });
  const sample = { run: 0, latencyMs: 50 + f.overheadP50, idealMs: 50, overheadMs: f.overheadP50, signers: 10, signedWeightPercent: 70, signedMessageBytes: 400, destinationGas: destinationGas(400, 10) };
  return {
    latencyMs: p(50 + f.overheadP50, 50 + f.overheadP99),
    idealMs: p(50, 50),
    overheadMs: p(f.overheadP50, f.overheadP99),
    cpuMsPerAggregation: f.cpu,
    throughputPerSec: f.throughput,
    signersPerMessage: { mean: 10, min: 10, max: 10 },
    destinationGasPerMessage: destinationGas(400, 10),
    fewestSigners: { readyPerMessage: 12, subsetChecks: 1, subsetCheckMsMean: 2 },
    aggregations: 1,
    failures: 0,
    service: { eventLoopDelayMs: { p50: 1, p99: 2, max: 3 }, maxWorkerQueue: 0, peakRssMb: 100, peakHeapUsedMb: 50, rssAtStartMb: 90, rssAtEndMb: 100, rssTimelineMb: [[0, 90], [1, 100]], responses: {}, requestsPerAggregation: {}, signersInMs: p(f.signersInP50 ?? 52, 60), ownMs: p(f.ownP50 ?? 3, 9) },
    signerHostsEventLoopDelayMs: { p50: 1, p99: 2, max: 3 },
    signerHostsCpuMsPerAggregation: 5,
    connectSeconds: 1,
    answersVerified: f.answersVerified ?? true,
    samples: [sample],
  };
}

function benchReport(strategies: Partial<Record<(typeof STRATEGIES)[number], StrategyReport>>): BenchReport {
  return {
    validators: 1000, transport: 'ws', quorumPercentage: 67, quorumPercentageBuffer: 0, runs: 1, warmup: 0, concurrency: 1, backend: 'blst',
    signerProcesses: 2, validatorsNice: 0, fanOutExtraPercent: 'default', serviceHeapMb: 'default', weights: 'skewed', latency: { distribution: 'lognormal', medianMs: 40, sigma: 0.5 },
    offlinePercent: 0, byzantinePercent: 0, offlineWeightPercent: 0, byzantineWeightPercent: 0, seed: 's',
    machine: { cpus: 2, cpuModel: 'test', node: 'v20', platform: 'linux/x64', loadAverage: { start: 1, end: 1 } },
    setupSeconds: { scenario: 1, signing: 1 }, signatureCacheMax: 'default', workers: 'default', ioShards: 'default',
    strategies: STRATEGIES.filter((s) => strategies[s]),
    ...strategies,
    derived: derivedFigures(strategies),
  };
}

describe('report: the floor and the figures derived within one run', () => {
  const warpgate = strategyReport({ overheadP50: 30, overheadP99: 80, cpu: 90, throughput: 10, signersInP50: 61.5, ownP50: 8 });
  const floor = strategyReport({ overheadP50: 12.5, overheadP99: 40, cpu: 36, throughput: 16, answersVerified: false, signersInP50: 52, ownP50: 1.5 });
  const perSignatureVerify = strategyReport({ overheadP50: 400, overheadP99: 450, cpu: 810, throughput: 2 });
  const warpgateAllSigners = strategyReport({ overheadP50: 31, overheadP99: 85, cpu: 92, throughput: 10 });

  it('derives the overhead above the floor and the CPU and throughput ratios from the given figures', () => {
    expect(derivedFigures({ warpgate, floor, perSignatureVerify })).toEqual({
      overheadAboveFloorMs: { p50: 17.5, p99: 40 },
      overheadAboveFloorSplitMs: { signersInLater: 9.5, serviceOwn: 6.5 },
      overheadAboveFloorPerRunMs: { p50: 17.5, p90: 17.5 },
      cpuWarpgateOverFloor: 2.5,
      cpuPerSignatureVerifyOverWarpgate: 9,
      throughputWarpgateOverFloor: 0.63,
    });
  });

  it('derives only what the strategies measured allow, and never divides by 0', () => {
    expect(derivedFigures({ warpgate, perSignatureVerify })).toEqual({ cpuPerSignatureVerifyOverWarpgate: 9 });
    expect(derivedFigures({ floor, perSignatureVerify })).toEqual({});
    expect(derivedFigures({ warpgate, floor: { ...floor, cpuMsPerAggregation: 0 } })).not.toHaveProperty('cpuWarpgateOverFloor');
  });

  it('splits the overhead above the floor by the service’s clock: signatures read in later, and the service’s own time', () => {
    const table = markdownTable(benchReport({ warpgate, floor }));
    expect(table).toContain("By the service's clock (p50), `warpgate` − `floor`: signers' weight read in 9.5 ms later, the service's own time (checks, decision) 6.5 ms longer");
    // A floor that reads the answers later than warpgate gives a negative part, shown as it is.
    const slowFloor = { ...floor, service: { ...floor.service, signersInMs: { p50: 70, p90: 70, p99: 70 } } };
    expect(derivedFigures({ warpgate, floor: slowFloor }).overheadAboveFloorSplitMs).toEqual({ signersInLater: -8.5, serviceOwn: 6.5 });
    expect(derivedFigures({ warpgate, perSignatureVerify: warpgate })).not.toHaveProperty('overheadAboveFloorSplitMs');
  });

  it('pairs each warpgate run with the floor’s run of the same message, leaving out a run that failed in either', () => {
    const runs = (overheads: [number, number][]) => overheads.map(([run, overheadMs]) => ({ ...warpgate.samples[0]!, run, overheadMs }));
    // Run 2 failed for the floor; the floor's run 4 had a hiccup, which counts against it, not warpgate.
    const w = { ...warpgate, samples: runs([[0, 10], [1, 12], [2, 30], [3, 14], [4, 11]]) };
    const f = { ...floor, samples: runs([[0, 8], [1, 8], [3, 9], [4, 40]]) };
    // Differences 2, 4, 5, −29: nearest rank p50 is the 2nd smallest, p90 the 4th.
    expect(derivedFigures({ warpgate: w, floor: f }).overheadAboveFloorPerRunMs).toEqual({ p50: 2, p90: 5 });
    expect(markdownTable(benchReport({ warpgate: w, floor: f }))).toContain('Run by run (same message and delays), `warpgate` − `floor`: 2.0 ms p50, 5.0 ms p90');
    expect(derivedFigures({ warpgate: w, floor: { ...f, samples: runs([[7, 8]]) } })).not.toHaveProperty('overheadAboveFloorPerRunMs');
    expect(derivedFigures({ warpgate: w, perSignatureVerify })).not.toHaveProperty('overheadAboveFloorPerRunMs');
  });

  it('splits the service CPU between the main thread and the others for warpgate and the floor, where the run read it', () => {
    const split = derivedFigures({ warpgate: { ...warpgate, mainThreadCpuMsPerAggregation: 40 }, floor: { ...floor, mainThreadCpuMsPerAggregation: 30 }, perSignatureVerify });
    expect(split.cpuSplitMs).toEqual({ warpgate: { mainThread: 40, otherThreads: 50 }, floor: { mainThread: 30, otherThreads: 6 } });
    // A tick of /proc's 10 ms can put the main thread above the whole: the rest is never negative.
    expect(derivedFigures({ floor: { ...floor, mainThreadCpuMsPerAggregation: 37 } }).cpuSplitMs).toEqual({ floor: { mainThread: 37, otherThreads: 0 } });
    expect(derivedFigures({ warpgate, floor })).not.toHaveProperty('cpuSplitMs');
    const table = markdownTable(benchReport({ warpgate: { ...warpgate, mainThreadCpuMsPerAggregation: 40 }, floor }));
    expect(table).toContain('Service CPU per aggregation, main thread + other threads (BLS workers, GC helpers): `warpgate` 40.0 + 50.0 ms');
    expect(table).not.toMatch(/`floor` [\d.]+ \+/);
  });

  it('reads a thread’s CPU time from its /proc stat line, whatever its name holds', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
    expect(statCpuMs('4242 (node) S 1 4242 4242 0 -1 4194560 100 0 0 0 123 45 0 0 20 0 11 0')).toBe(1680);
    expect(statCpuMs('4242 (a b) (c)) R 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0')).toBe(100);
    expect(() => statCpuMs('not a stat line')).toThrow(/not a \/proc stat line/);
    const now = threadCpuMs();
    if (process.platform === 'linux') expect(now).toBeGreaterThanOrEqual(0);
    else expect(now).toBeUndefined();
  });

  it('the table has a row per strategy measured, the floor marked unverified, and the derived lines', () => {
    const table = markdownTable(benchReport({ warpgate, warpgateAllSigners, perSignatureVerify, floor }));
    const rows = table.split('\n').filter((l) => /^\| `/.test(l));
    expect(rows.map((l) => /^\| `(\w+)`/.exec(l)![1])).toEqual(['warpgate', 'warpgateAllSigners', 'perSignatureVerify', 'floor']);
    expect(rows[3]).toContain('| 12.5 / 26.3 / 40.0 | 36.0 |');
    expect(table).toMatch(/^`floor`: signature verification skipped\./m);
    expect(table).toContain('Overhead above the floor, `warpgate` − `floor`: 17.5 ms p50, 40.0 ms p99');
    expect(table).toContain('CPU per aggregation: `warpgate` / `floor` = 2.50x');
    expect(table).toContain('CPU per aggregation: `perSignatureVerify` / `warpgate` = 9.0x');
    expect(table).toContain('Throughput: `warpgate` / `floor` = 0.63x');
    expect(table).toMatch(/^Fewest signers: `warpgate` put 10\.0 signers .* `warpgateAllSigners` \(every signature ready/m);
  });

  it('says how many final checks shared a worker task, when the file has the figure (older files do not)', () => {
    const withChecks = markdownTable(benchReport({ warpgate: { ...warpgate, finalChecks: { checks: 640, tasks: 229 } }, floor }));
    expect(withChecks).toMatch(/^Final checks: `warpgate` made 640 in 229 worker tasks \(2\.79 per task/m);
    expect(markdownTable(benchReport({ warpgate, floor }))).not.toMatch(/Final checks/);
  });

  it('a run of some strategies reports only those, and says nothing of the others', () => {
    const onlyWarpgate = markdownTable(benchReport({ warpgate }));
    expect(onlyWarpgate).not.toContain('`floor`');
    expect(onlyWarpgate).not.toContain('warpgateAllSigners');
    expect(onlyWarpgate).not.toContain('CPU per aggregation');
    expect(onlyWarpgate).toMatch(/^Fewest signers: `warpgate`/m);
    const onlyFloor = markdownTable(benchReport({ floor }));
    expect(onlyFloor).toMatch(/^\| `floor` \|/m);
    expect(onlyFloor).not.toMatch(/Fewest signers|Overhead above/);
  });

  it('the chart draws the ideal and one line per strategy measured, the floor included', () => {
    const all = chartOf(benchReport({ warpgate, warpgateAllSigners, perSignatureVerify, floor }));
    expect(all.match(/<path /g)).toHaveLength(5);
    expect(all).toContain('stroke="#9467bd"');
    expect(all).toContain('floor (no crypto; not valid)');
    const two = chartOf(benchReport({ warpgate, floor }));
    expect(two.match(/<path /g)).toHaveLength(3);
    expect(two).not.toContain('perSignatureVerify');
  });
});

describe('the machine short of cores (Linux PSI)', () => {
  it('reads the cumulative “some” stall of a /proc/pressure/cpu text, and refuses anything else', () => {
    const text = 'some avg10=0.44 avg60=13.41 avg300=21.02 total=13366260382\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n';
    expect(pressureSomeTotalUs(text)).toBe(13366260382);
    expect(() => pressureSomeTotalUs('full avg10=0.00 total=5\n')).toThrow(/not a \/proc\/pressure\/cpu text/);
    const now = cpuStallUs();
    // Where the kernel has PSI the total only grows; elsewhere there is nothing to read.
    if (now !== undefined) expect(cpuStallUs()!).toBeGreaterThanOrEqual(now);
  });

  it('sets the slowest 5% of runs by overhead apart from the median run', () => {
    // 40 runs: the two slowest (5%) had the machine short of cores, the rest did not.
    const runs = Array.from({ length: 40 }, (_, i) => ({ overheadMs: 10 + i, cpuStallMs: i >= 38 ? 30 + i : 2 }));
    expect(cpuStallSummary(runs)).toEqual({ p50: 2, slowestRunsMean: 68.5 });
    // At least one run is the slowest share; runs without a reading are left out; none at all, no figure.
    expect(cpuStallSummary([{ overheadMs: 5, cpuStallMs: 1 }, { overheadMs: 50, cpuStallMs: 9 }, { overheadMs: 99 }])).toEqual({ p50: 1, slowestRunsMean: 9 });
    expect(cpuStallSummary([{ overheadMs: 5 }])).toBeUndefined();
  });

  it('the table says how short of cores the machine was, per strategy that has the figure', () => {
    const warpgate = { ...strategyReport({ overheadP50: 30, overheadP99: 80, cpu: 90, throughput: 10 }), cpuStallMs: { p50: 4.5, slowestRunsMean: 31 } };
    const floor = strategyReport({ overheadP50: 12.5, overheadP99: 40, cpu: 36, throughput: 16, answersVerified: false });
    const table = markdownTable(benchReport({ warpgate, floor }));
    expect(table).toContain('p50 / mean of the slowest 5% of runs: `warpgate` 4.5 / 31.0 ms');
    expect(table).not.toContain('`floor` 4.5');
    expect(markdownTable(benchReport({ floor }))).not.toContain('short of cores');
  });
});

describe('memory chart', () => {
  it('draws each strategy\'s resident memory over time from 0 MB, with the stated bound dashed', () => {
    const svg = timelineChart('rss', 's', { x: 'seconds', y: 'MB' }, [
      { label: 'warpgate', color: '#1f77b4', points: [[0, 260], [10, 400], [20, 410]] },
      { label: 'floor', color: '#9467bd', points: [[0, 250], [20, 380]] },
    ], { label: 'bound: 600 MB', value: 600 });
    expect(svg.match(/<path /g)).toHaveLength(2);
    expect(svg).toContain('bound: 600 MB');
    expect(svg).toContain('stroke-dasharray="6 4"');
    // The y axis starts at 0 and reaches past the bound.
    expect(svg).toMatch(/text-anchor="end">0<\/text>/);
    expect(svg).toMatch(/text-anchor="end">600<\/text>/);
    expect(svg).not.toContain('NaN');
    expect(() => timelineChart('t', 's', { x: 'x', y: 'y' }, [])).toThrow(RangeError);
  });
});
