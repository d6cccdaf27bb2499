// The quorum benchmark's command line: flags, their defaults and limits. Every mistake is a
// BenchArgsError naming the flag, so `npm run bench` can print one clear line and exit 2.
import type { BackendName } from '../src/bls/types.js';
import { DEFAULT_STRATEGIES, STRATEGIES, isStrategy, type Strategy } from './strategies.js';

export type WeightShape = 'uniform' | 'skewed';

/** How the service reaches the validators: signer peers (WebSocket) or simulated avalanchego nodes (p2p). */
export type BenchTransport = 'ws' | 'p2p';

export interface LatencyModel {
  /** Median injected answer delay, milliseconds. */
  medianMs: number;
  /** Standard deviation of the delay's natural logarithm. */
  sigma: number;
}

export interface BenchOptions {
  validators: number;
  transport: BenchTransport;
  weights: WeightShape;
  latency: LatencyModel;
  /** Percent of validators (by count) that never connect. */
  offlinePercent: number;
  /** Percent of validators (by count) that answer with invalid signatures. */
  byzantinePercent: number;
  quorumPercentage: number;
  quorumPercentageBuffer: number;
  /** Timed aggregations per strategy, each over its own message. */
  runs: number;
  /** Requests in flight at once. */
  concurrency: number;
  backend: BackendName;
  /** Where to write the JSON; the SVG chart goes next to it. */
  json: string | undefined;
  /** Seeds keys, weights, offline/byzantine choice and every delay. */
  seed: string;
  /**
   * Untimed aggregations per service process before the timed runs (JIT, caches, sockets). The
   * first strategy's also warm the validators' processes. 20: with 3, the first strategy's timed
   * runs still paid for its BLS worker threads' and the validators' JIT (commit 05363a7).
   */
  warmup: number;
  /** Directory for V8 CPU profiles of the service processes (node --cpu-prof). */
  cpuProfileDir: string | undefined;
  /** Directory for Linux perf recordings of the service processes (on-CPU, every thread: perf-record.ts). */
  perfDir: string | undefined;
  /** Child processes hosting the simulated validators. */
  signerProcesses: number;
  /**
   * Nice value (0–19) of the validators' processes, every thread: at more than 0 the service gets
   * the cores first, as it would with the validators on other machines.
   */
  validatorsNice: number;
  /** The service's aggregation.fanOutExtraPercent; undefined keeps the service's default. */
  fanOutExtraPercent: number | undefined;
  /** V8 heap limit of the service process (--max-old-space-size), to check that it fits. */
  serviceHeapMb: number | undefined;
  /** The service's signatureCache.maxSignatures; undefined keeps the service's default. */
  signatureCacheMax: number | undefined;
  /** The service's workers.threads (BLS worker threads); undefined keeps the service's default. */
  workers: number | undefined;
  /** The service's p2p.ioShards (worker threads holding the p2p connections; --transport p2p only); undefined keeps the default. */
  ioShards: number | undefined;
  /** The strategies to measure, in STRATEGIES order (a long run can measure only some). */
  strategies: Strategy[];
}

export const DEFAULT_OPTIONS: BenchOptions = {
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
  seed: 'warpgate-bench',
  warmup: 20,
  cpuProfileDir: undefined,
  perfDir: undefined,
  signerProcesses: 2,
  validatorsNice: 0,
  fanOutExtraPercent: undefined,
  serviceHeapMb: undefined,
  signatureCacheMax: undefined,
  workers: undefined,
  ioShards: undefined,
  strategies: [...DEFAULT_STRATEGIES],
};

export const USAGE = `usage: npm run bench -- [--validators N] [--transport ws|p2p] [--weights uniform|skewed]
  [--latency lognormal:MEDIAN_MS:SIGMA] [--offline PCT] [--byzantine PCT] [--quorum 67]
  [--buffer 0] [--runs R] [--concurrency C] [--backend blst|noble] [--json FILE]
  [--seed S] [--warmup W] [--cpu-prof DIR] [--perf DIR] [--signer-processes P] [--validators-nice 0-19] [--fan-out-extra PCT]
  [--service-heap-mb MB] [--signature-cache-max N] [--workers N] [--io-shards N] [--strategies ${STRATEGIES.join(',')}]`;

export class BenchArgsError extends Error {
  override readonly name = 'BenchArgsError';
  constructor(
    readonly flag: string,
    readonly reason: string,
  ) {
    super(`${flag}: ${reason}`);
  }
}

/** A bench entry point's flags, or the mistake and the usage on stderr and exit status 2. */
export function parseOrExit<T>(parse: (argv: string[]) => T, usage: string, argv: string[] = process.argv.slice(2)): T {
  try {
    return parse(argv);
  } catch (err) {
    if (!(err instanceof BenchArgsError)) throw err;
    process.stderr.write(`${err.message}\n${usage}\n`);
    process.exit(2);
  }
}

function integer(flag: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new BenchArgsError(flag, `must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new BenchArgsError(flag, `must be from ${min} to ${max}, got ${n}`);
  return n;
}

function percent(flag: string, raw: string): number {
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new BenchArgsError(flag, `must be a percentage from 0 to 100, got '${raw}'`);
  const n = Number(raw);
  if (n > 100) throw new BenchArgsError(flag, `must be a percentage from 0 to 100, got ${n}`);
  return n;
}

/** `lognormal:MEDIAN_MS:SIGMA`, e.g. `lognormal:40:0.5`. */
export function parseLatency(raw: string): LatencyModel {
  const m = /^lognormal:(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(raw);
  if (!m) throw new BenchArgsError('--latency', `must look like lognormal:MEDIAN_MS:SIGMA (e.g. lognormal:40:0.5), got '${raw}'`);
  const medianMs = Number(m[1]);
  const sigma = Number(m[2]);
  if (medianMs > 10_000) throw new BenchArgsError('--latency', `a median above 10000 ms is not a benchmark, got ${medianMs}`);
  if (sigma > 3) throw new BenchArgsError('--latency', `sigma must be at most 3, got ${sigma}`);
  return { medianMs, sigma };
}

/** `a,b,...`: known names, none twice; measured in STRATEGIES order whatever the order given. */
export function parseStrategies(raw: string): Strategy[] {
  const names = raw.split(',').map((n) => n.trim());
  if (names.some((n) => n === '')) throw new BenchArgsError('--strategies', `must be a comma-separated list of ${STRATEGIES.join(', ')}, got '${raw}'`);
  const unknown = names.filter((n) => !isStrategy(n));
  if (unknown.length > 0) {
    throw new BenchArgsError('--strategies', `unknown strategy ${unknown.map((n) => `'${n}'`).join(', ')}; known: ${STRATEGIES.join(', ')}`);
  }
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new BenchArgsError('--strategies', `'${twice}' is named twice`);
  return STRATEGIES.filter((s) => names.includes(s));
}

export function parseArgs(argv: readonly string[]): BenchOptions {
  const o: BenchOptions = { ...DEFAULT_OPTIONS, latency: { ...DEFAULT_OPTIONS.latency }, strategies: [...DEFAULT_OPTIONS.strategies] };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const eq = flag.indexOf('=');
    const name = eq > 0 ? flag.slice(0, eq) : flag;
    const value = (): string => {
      if (eq > 0) return flag.slice(eq + 1);
      const next = argv[i + 1];
      if (next === undefined) throw new BenchArgsError(name, 'needs a value');
      i++;
      return next;
    };
    switch (name) {
      case '--validators':
        o.validators = integer(name, value(), 2, 10_000);
        break;
      case '--transport': {
        const v = value();
        if (v !== 'ws' && v !== 'p2p') throw new BenchArgsError(name, `must be ws or p2p, got '${v}'`);
        o.transport = v;
        break;
      }
      case '--weights': {
        const v = value();
        if (v !== 'uniform' && v !== 'skewed') throw new BenchArgsError(name, `must be uniform or skewed, got '${v}'`);
        o.weights = v;
        break;
      }
      case '--latency':
        o.latency = parseLatency(value());
        break;
      case '--offline':
        o.offlinePercent = percent(name, value());
        break;
      case '--byzantine':
        o.byzantinePercent = percent(name, value());
        break;
      case '--quorum':
        o.quorumPercentage = integer(name, value(), 1, 100);
        break;
      case '--buffer':
        o.quorumPercentageBuffer = integer(name, value(), 0, 99);
        break;
      case '--runs':
        o.runs = integer(name, value(), 1, 100_000);
        break;
      case '--concurrency':
        o.concurrency = integer(name, value(), 1, 1024);
        break;
      case '--backend': {
        const v = value();
        if (v !== 'blst' && v !== 'noble') throw new BenchArgsError(name, `must be blst or noble, got '${v}'`);
        o.backend = v;
        break;
      }
      case '--json':
        o.json = value();
        break;
      case '--seed':
        o.seed = value();
        break;
      case '--warmup':
        o.warmup = integer(name, value(), 0, 100_000);
        break;
      case '--cpu-prof':
        o.cpuProfileDir = value();
        break;
      case '--perf':
        o.perfDir = value();
        break;
      case '--signer-processes':
        o.signerProcesses = integer(name, value(), 1, 64);
        break;
      case '--validators-nice':
        o.validatorsNice = integer(name, value(), 0, 19);
        break;
      case '--fan-out-extra':
        o.fanOutExtraPercent = integer(name, value(), 0, 100);
        break;
      case '--service-heap-mb':
        o.serviceHeapMb = integer(name, value(), 64, 65_536);
        break;
      case '--signature-cache-max':
        // The config schema's own range (src/config/schema.ts).
        o.signatureCacheMax = integer(name, value(), 0, 100_000_000);
        break;
      case '--workers':
        // The config schema's own range (src/config/schema.ts, workers.threads).
        o.workers = integer(name, value(), 1, 64);
        break;
      case '--io-shards':
        // The config schema's own range (src/config/schema.ts, p2p.ioShards).
        o.ioShards = integer(name, value(), 0, 64);
        break;
      case '--strategies':
        o.strategies = parseStrategies(value());
        break;
      default:
        throw new BenchArgsError(name, 'unknown flag');
    }
  }
  if (o.strategies.includes('icmServices') && o.transport !== 'p2p') {
    throw new BenchArgsError('--strategies', 'icmServices needs --transport p2p (icm-services dials avalanchego nodes)');
  }
  if (o.ioShards !== undefined && o.transport !== 'p2p') throw new BenchArgsError('--io-shards', 'applies to --transport p2p only (the WebSocket signers dial the service)');
  if (o.quorumPercentage + o.quorumPercentageBuffer > 100) {
    throw new BenchArgsError('--buffer', `--quorum + --buffer must be at most 100, got ${o.quorumPercentage + o.quorumPercentageBuffer}`);
  }
  if (o.offlinePercent + o.byzantinePercent > 100) {
    throw new BenchArgsError('--byzantine', '--offline + --byzantine must be at most 100');
  }
  return o;
}
