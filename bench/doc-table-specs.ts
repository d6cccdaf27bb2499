// The tables bench/doc-tables.ts writes into the docs: one per question docs/performance.md
// answers, and README.md's headline figures. Each names the JSON files it reads; a new table is
// a new entry here and a marker pair in a doc. Summary JSONs (bench/results/repeats-200/…) hold
// one record per run; raw bench JSONs one object per strategy (bench/harness.ts).
import type { TableSpec } from './doc-tables.js';

const R = 'bench/results';
const PSV_WS = `${R}/repeats-200/parsed-keys/psv-ws-w200.json`;
const PSV_P2P = `${R}/repeats-200/parsed-keys/psv-p2p-w200.json`;
const C32_WS = `${R}/repeats-200/steady-state/c32-ws.json`;
const C32_P2P = `${R}/repeats-200/steady-state/c32-p2p.json`;
const MEMORY_WS = `${R}/memory-2000.json`;
const MEMORY_WS_LONG = `${R}/memory-2000-5000.json`;
const MEMORY_P2P = `${R}/memory-2000-p2p-3000-fixed.json`;
const SIGNERS_WS = `${R}/quorum-1000.json`;
const SIGNERS_P2P = `${R}/repeats-200/checks-together/p2p-w200.json`;
const BLS = `${R}/bls-backends.json`;
/** warpgate, the real icm-services and the floor in one run each, over p2p (bench/icm-strategy.ts). */
const ICM_RUNS = [`${R}/icm-services/p2p-100.json`, `${R}/icm-services/p2p-1000.json`];

/** warpgate relay on the interop network, both ways at a steady rate (bench/relayer.ts). */
const RELAYER = `${R}/relayer/interop-60x2.json`;

/** The steady-state 100 × 32 runs: 3,000 warm-ups at the timed concurrency. */
const STEADY_WARMUP = 3000;

// The JSON is read loosely: a field the bench did not write shows as '?' in the doc, which the
// review sees, rather than failing the generator.
type J = any;

const MINUS = '−';

/** A number with `digits` decimals, and thousands separated (1,031.9). */
export function num(value: unknown, digits = 1): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '?';
  const fixed = Math.abs(value).toFixed(digits);
  const [int, frac] = fixed.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${value < 0 ? MINUS : ''}${grouped}${frac ? `.${frac}` : ''}`;
}

/** A difference, always signed (+3.2, −1.9). */
export function signed(value: unknown, digits = 1): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '?';
  return value >= 0 ? `+${num(value, digits)}` : num(value, digits);
}

function ratio(value: unknown, digits = 2): string {
  return `${num(value, digits)}x`;
}

function range(values: number[], fmt: (v: number) => string): string {
  if (values.length === 0) return '?';
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? fmt(lo) : `${fmt(lo)} to ${fmt(hi)}`;
}

function row(cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

function header(cells: string[]): string[] {
  return [row(cells), row(cells.map(() => '---'))];
}

function runs(json: J): J[] {
  return Array.isArray(json?.runs) ? json.runs : [];
}

function steady(json: J): J[] {
  return runs(json).filter((r) => r.warmup === STEADY_WARMUP);
}

function pair(a: unknown, b: unknown, digits = 1): string {
  return `${num(a, digits)} / ${num(b, digits)}`;
}

function overheadRows(transport: string, list: J[]): string[] {
  return list.map((r) =>
    row([
      transport,
      String(r.run),
      pair(r.warpgate?.overheadMs?.p50, r.warpgate?.overheadMs?.p99),
      pair(r.floor?.overheadMs?.p50, r.floor?.overheadMs?.p99),
      `${signed(r.overheadAboveFloorMs?.p50)} / ${signed(r.overheadAboveFloorMs?.p99)}`,
    ]),
  );
}

const OVERHEAD_HEADER = ['transport', 'run', '`warpgate` overhead ms, p50 / p99', '`floor` overhead ms, p50 / p99', 'above the floor ms, p50 / p99'];

/** The service's resident memory over the last 60% of a run's time, from its timeline. */
export function lateRange(timeline: unknown): [number, number] | undefined {
  if (!Array.isArray(timeline) || timeline.length === 0) return undefined;
  const points = timeline as [number, number][];
  const end = points[points.length - 1]![0];
  const late = points.filter(([t]) => t >= 0.4 * end).map(([, mb]) => mb);
  return late.length ? [Math.min(...late), Math.max(...late)] : undefined;
}

function memoryRows(transport: string, json: J): string[] {
  return (json.strategies as string[]).map((name) => {
    const s = json[name]?.service ?? {};
    const late = lateRange(s.rssTimelineMb);
    return row([
      transport,
      num(json.runs, 0),
      `\`${name}\``,
      `${num(s.rssAtStartMb, 0)} → ${num(s.rssAtEndMb, 0)}`,
      late ? `${num(late[0], 0)}–${num(late[1], 0)}` : '?',
      num(s.peakRssMb, 0),
      num(s.peakHeapUsedMb, 0),
    ]);
  });
}

function signerRows(validators: string, transport: string, json: J): string[] {
  return (json.strategies as string[]).map((name) => {
    const s = json[name] ?? {};
    const n = s.signersPerMessage ?? {};
    const gas = s.destinationGasPerMessage ?? {};
    return row([validators, transport, `\`${name}\``, `${num(n.mean)} (${num(n.min, 0)}–${num(n.max, 0)})`, pair(gas.granite, gas.preGranite, 0)]);
  });
}

/** A BLS figure: microseconds under a millisecond, else milliseconds. */
function duration(ms: unknown): string {
  if (typeof ms !== 'number') return '?';
  return ms < 1 ? `${num(ms * 1000, ms < 0.01 ? 1 : 0)} µs` : `${num(ms, 2)} ms`;
}

const BLS_ROWS: [key: string, label: string, compared: boolean][] = [
  ['verifyOneMs', 'verify one signature', true],
  ['aggregateAndVerify1000Ms', 'aggregate-and-verify 1,000 (subgroup checks, sums, one verification)', true],
  ['signatureParseMsPerSignature', 'signature parse and subgroup check, per signature', true],
  ['uncheckedSumMsPerSignature', 'compressed signature: decompress and add to the sum, per signature (a fold over p2p)', true],
  ['uncompressedSumMsPerSignature', 'uncompressed signature: decode and add to the sum, per signature (a fold of signer peers)', true],
  ['fewestSignersWholeThenSubsetMs', 'the fewest signers, 10 of 560 left out: the whole sum checked, then the subset', true],
  ['fewestSignersSubsetAloneMs', 'the same: the subset alone (what the pool does)', true],
  ['finalChecksOneByOneMsPerCheck', 'final checks of 16 aggregations one by one, per check', true],
  ['finalChecksTogether4MsPerCheck', 'the same, 4 together, per check', false],
  ['finalChecksTogetherAllMsPerCheck', 'the same, all 16 together, per check', false],
  ['signMs', 'sign', true],
];

function blsCell(f: J): string {
  if (!f) return '?';
  const cpu = typeof f.cpuMs === 'number' ? `; CPU ${duration(f.cpuMs)}` : '';
  return `${duration(f.medianMs)}${cpu} (median of ${num(f.iterations, 0)})`;
}

/** A run's shape: validators, and × concurrency when more than one at a time. */
function shape(json: J): string {
  return `${num(json?.validators, 0)}${json?.concurrency > 1 ? ` × ${num(json.concurrency, 0)}` : ''}`;
}

function icmRows(json: J): string[] {
  return ((json?.strategies ?? []) as string[]).map((name) => {
    const s = json[name] ?? {};
    const n = s.signersPerMessage ?? {};
    return row([
      shape(json),
      `\`${name}\``,
      pair(s.latencyMs?.p50, s.latencyMs?.p99),
      pair(s.overheadMs?.p50, s.overheadMs?.p99),
      num(s.cpuMsPerAggregation),
      num(s.throughputPerSec),
      `${num(n.mean)} (${num(n.min, 0)}–${num(n.max, 0)})`,
      num(s.service?.peakRssMb, 0),
      `${num(s.failures, 0)} of ${num(json.runs, 0)}`,
      num(s.cpuStallMs?.p50),
    ]);
  });
}

/** The issue's targets against one run's ratios: warpgate's lead over the real icm-services. */
function icmTargetRow(json: J): string {
  const d = json?.derived ?? {};
  const w = json?.warpgate?.signersPerMessage?.mean;
  const i = json?.icmServices?.signersPerMessage?.mean;
  return row([
    shape(json),
    ratio(d.latencyP50IcmServicesOverWarpgate),
    ratio(d.latencyP99IcmServicesOverWarpgate),
    ratio(d.cpuIcmServicesOverWarpgate, 1),
    ratio(d.throughputWarpgateOverIcmServices),
    pair(w, i),
  ]);
}

/** Milliseconds as seconds to the hundredth (2.07). */
const seconds = (ms: unknown): string => (typeof ms === 'number' ? num(ms / 1000, 2) : '?');

function relayerRow(d: J): string {
  const lat = d?.latencyFromSourceBlockMs;
  const seen = d?.latencyFromSendSeenMs;
  const gas = d?.gasPerDelivery;
  const txs = d?.deliveryTransactions;
  return row([
    String(d?.name ?? '?'),
    `${num(d?.delivered, 0)} of ${num(d?.sent, 0)}`,
    pair(d?.offeredPerSecond, d?.deliveredPerSecond, 2),
    `${seconds(lat?.p50)} / ${seconds(lat?.p99)}`,
    `${seconds(seen?.p50)} / ${seconds(seen?.p99)}`,
    seconds(d?.destinationBlockIntervalMs?.p50),
    `${num(gas?.mean, 0)} (${num(gas?.min, 0)}–${num(gas?.max, 0)})`,
    num(d?.gasLimitMean, 0),
    `${num(txs?.total, 0)} (${num(txs?.reverted, 0)} reverted)`,
    num(d?.relayerMetrics?.retries, 0),
  ]);
}

const values = (list: J[], pick: (r: J) => unknown): number[] => list.map(pick).filter((v): v is number => typeof v === 'number');

export const TABLES: TableSpec[] = [
  {
    id: 'latency-1000',
    sources: [PSV_WS, PSV_P2P],
    render: ([ws, p2p]) => [...header(OVERHEAD_HEADER), ...overheadRows('WebSocket', runs(ws)), ...overheadRows('p2p', runs(p2p))],
  },
  {
    id: 'latency-100',
    sources: [C32_WS, C32_P2P],
    render: ([ws, p2p]) => [...header(OVERHEAD_HEADER), ...overheadRows('WebSocket', steady(ws)), ...overheadRows('p2p', steady(p2p))],
  },
  {
    id: 'cpu-1000',
    sources: [PSV_WS, PSV_P2P],
    render: ([ws, p2p]) => [
      ...header(['transport', 'run', 'service CPU ms: `warpgate` / `floor` / `perSignatureVerify`', '`warpgate` / `floor`', '`perSignatureVerify` / `warpgate`', 'main thread ms: `warpgate` / `floor`', 'other threads ms: `warpgate` / `floor`', "validators' CPU ms: `warpgate`'s / the floor's phase"]),
      ...[...runs(ws).map((r) => ['WebSocket', r]), ...runs(p2p).map((r) => ['p2p', r])].map(([t, r]: J) =>
        row([
          t,
          String(r.run),
          `${num(r.warpgate?.serviceCpuMs)} / ${num(r.floor?.serviceCpuMs)} / ${num(r.perSignatureVerify?.serviceCpuMs)}`,
          ratio(r.cpuWarpgateOverFloor),
          ratio(r.cpuPerSignatureVerifyOverWarpgate, 1),
          pair(r.warpgate?.mainThreadMs, r.floor?.mainThreadMs),
          pair(r.warpgate?.otherThreadsMs, r.floor?.otherThreadsMs),
          pair(r.warpgate?.validatorsCpuMs, r.floor?.validatorsCpuMs),
        ]),
      ),
    ],
  },
  {
    id: 'throughput-100x32',
    sources: [C32_WS, C32_P2P],
    render: ([ws, p2p]) => [
      ...header(['transport', 'run', 'aggregations / s: `warpgate` / `floor`', '`warpgate` / `floor`', 'service CPU ms / aggregation: `warpgate` / `floor`', "validators' CPU ms / aggregation: `warpgate`'s / the floor's phase"]),
      ...[...steady(ws).map((r) => ['WebSocket', r]), ...steady(p2p).map((r) => ['p2p', r])].map(([t, r]: J) =>
        row([t, String(r.run), pair(r.warpgate?.throughputPerSec, r.floor?.throughputPerSec), ratio(r.throughputWarpgateOverFloor), pair(r.warpgate?.serviceCpuMs, r.floor?.serviceCpuMs, 2), pair(r.warpgate?.validatorsCpuMs, r.floor?.validatorsCpuMs, 2)]),
      ),
    ],
  },
  {
    id: 'memory-2000',
    sources: [MEMORY_WS, MEMORY_WS_LONG, MEMORY_P2P],
    render: ([ws, wsLong, p2p]) => [
      ...header(['transport', 'runs', 'strategy', 'resident MB, first → last run', 'resident MB over the last 60% of the run', 'peak resident MB', 'peak V8 heap MB']),
      ...memoryRows('WebSocket', ws),
      ...memoryRows('WebSocket', wsLong),
      ...memoryRows('p2p', p2p),
    ],
  },
  {
    id: 'signers-gas',
    sources: [SIGNERS_WS, SIGNERS_P2P, MEMORY_WS],
    render: ([ws, p2p, big]) => [
      ...header(['validators', 'transport', 'strategy', 'signers / message: mean (min–max)', 'destination gas / message: Granite / before']),
      ...signerRows('1,000', 'WebSocket', ws),
      ...signerRows('1,000', 'p2p', p2p),
      ...signerRows('2,000', 'WebSocket', big),
    ],
  },
  {
    id: 'bls-backends',
    sources: [BLS],
    render: ([bls]: J[]) => [
      ...header(['operation', 'blst', 'noble', 'noble / blst']),
      ...BLS_ROWS.map(([key, label, compared]) => {
        const b = bls?.backends?.blst?.[key];
        const n = bls?.backends?.noble?.[key];
        return row([label, blsCell(b), blsCell(n), compared && b && n ? ratio(n.medianMs / b.medianMs, 1) : '—']);
      }),
    ],
  },
  {
    id: 'headline',
    sources: [PSV_WS, PSV_P2P, C32_WS, C32_P2P, MEMORY_WS, MEMORY_P2P, ICM_RUNS[1]!],
    render: ([ws, p2p, cws, cp2p, mws, mp2p, icm]: J[]) => {
      const both = (pick: (r: J) => unknown, fmt: (v: number) => string, wsRuns = runs(ws), p2pRuns = runs(p2p)) => [range(values(wsRuns, pick), fmt), range(values(p2pRuns, pick), fmt)];
      const ms = (v: number) => `${signed(v)} ms`;
      const x = (v: number) => ratio(v);
      const psv = '`npm run bench -- --validators 1000 [--transport p2p] --strategies warpgate,perSignatureVerify,floor --runs 100 --warmup 200`';
      const c32 = '`npm run bench -- --validators 100 --concurrency 32 [--transport p2p] --strategies warpgate,floor --runs 640 --warmup 3000`';
      const mem = '`npm run bench -- --validators 2000 [--transport p2p] --runs R --strategies warpgate --service-heap-mb 512`';
      const icmCmd = '`npm run bench -- --transport p2p --strategies warpgate,icmServices,floor --validators 1000 --runs 100 --warmup 100`';
      const d = icm?.derived;
      return [
        ...header(['figure', 'WebSocket signers', 'avalanchego nodes (p2p)', 'command']),
        row(['1,000 validators: the real icm-services against warpgate, CPU / latency p50 / p99 (one run, on a heavily loaded machine)', '—', `${ratio(d?.cpuIcmServicesOverWarpgate, 1)} / ${ratio(d?.latencyP50IcmServicesOverWarpgate)} / ${ratio(d?.latencyP99IcmServicesOverWarpgate)}`, icmCmd]),
        row(['1,000 validators: latency above the floor, p50', ...both((r) => r.overheadAboveFloorMs?.p50, ms), psv]),
        row(['1,000 validators: latency above the floor, p99', ...both((r) => r.overheadAboveFloorMs?.p99, ms), psv]),
        row(['1,000 validators: service CPU per aggregation', ...both((r) => r.warpgate?.serviceCpuMs, (v) => `${num(v)} ms`), psv]),
        row(["1,000 validators: service CPU against the floor's", ...both((r) => r.cpuWarpgateOverFloor, x), psv]),
        row(['1,000 validators: service CPU below `perSignatureVerify` (our model of icm-services\' algorithm)', ...both((r) => r.cpuPerSignatureVerifyOverWarpgate, (v) => ratio(v, 1)), psv]),
        row(['100 validators, 32 clients: aggregations / s', ...both((r) => r.warpgate?.throughputPerSec, (v) => num(v), steady(cws), steady(cp2p)), c32]),
        row(["100 validators, 32 clients: throughput against the floor's", ...both((r) => r.throughputWarpgateOverFloor, x, steady(cws), steady(cp2p)), c32]),
        row(['2,000 validators: peak resident memory', `${num(mws?.warpgate?.service?.peakRssMb, 0)} MB (${num(mws?.runs, 0)} runs)`, `${num(mp2p?.warpgate?.service?.peakRssMb, 0)} MB (${num(mp2p?.runs, 0)} runs)`, mem]),
      ];
    },
  },
  {
    id: 'icm-services',
    sources: ICM_RUNS,
    render: (runs: J[]) => [
      ...header([
        'validators (× clients)',
        'strategy',
        'latency ms, p50 / p99',
        'overhead ms, p50 / p99',
        'service CPU ms / aggregation',
        'aggregations / s',
        'signers / message, mean (min–max)',
        'peak resident MB',
        'failed',
        'machine short of cores, ms per run, p50',
      ]),
      ...runs.flatMap(icmRows),
    ],
  },
  {
    id: 'icm-services-targets',
    sources: ICM_RUNS,
    render: (runs: J[]) => [
      ...header([
        'validators (× clients)',
        'latency p50, icm-services / warpgate (target ≥ 3x at 1,000)',
        'latency p99, icm-services / warpgate (target > 1x)',
        'CPU / aggregation, icm-services / warpgate (target ≥ 10x)',
        'throughput, warpgate / icm-services (target ≥ 3x at 100 × 32)',
        'signers / message, warpgate / icm-services (target ≤)',
      ]),
      ...runs.map(icmTargetRow),
    ],
  },
  {
    id: 'relayer',
    sources: [RELAYER],
    render: ([run]: J[]) => [
      ...header([
        'direction',
        'delivered',
        'messages / s: offered / delivered',
        'latency s, source block → delivery block: p50 / p99',
        'latency s, send seen → delivery block: p50 / p99',
        "destination's block interval s, p50",
        'gas / delivery: mean (min–max)',
        'gas limit set, mean',
        'delivery transactions',
        'retries',
      ]),
      ...((run?.directions ?? []) as J[]).map(relayerRow),
    ],
  },
  {
    id: 'relayer-process',
    sources: [RELAYER],
    render: ([run]: J[]) => {
      const p = run?.relayerProcess ?? {};
      const load = run?.machine?.loadAverage1m;
      return [
        ...header(['timed window s', 'relayer CPU s', 'mean cores', 'CPU ms / delivered message', 'peak resident MB', 'machine load average (1 min), start / end', 'machine short of cores, ms per s']),
        row([seconds(p.timedWindowMs), seconds(p.cpuMs), num(p.meanCores, 3), num(p.cpuMsPerDeliveredMessage), num(p.peakRssMb, 0), pair(load?.start, load?.end, 2), num(run?.machineCpuStallMsPerSecond, 0)]),
      ];
    },
  },
];
