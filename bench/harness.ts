// The quorum-latency benchmark: builds the scenario, starts the bench P-Chain and the validator
// host processes (every validator signs every message before timing starts), then for each
// strategy starts a fresh service process, connects the validators to it, warms it up, and times
// the runs over the same messages with the same delays. The validators are signer peers that dial
// the service (--transport ws) or simulated avalanchego nodes the service dials over avalanchego's
// own protocol, finding them through the bench P-Chain's info.peers (--transport p2p). Afterwards
// every signed message is verified against the validator set, so the figures are for messages
// avalanchego would accept; except the `floor` strategy's, which carry no real aggregate
// (floor.ts): their signers bitset, network and weight are read, their signature is not checked,
// and the report says so (StrategyReport.answersVerified).
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { canonicalSet } from '../src/validators/canonical-set.js';
import { verifySignedMessage } from '../src/validators/verify.js';
import { quorumReached } from '../src/validators/quorum.js';
import { decodeSigners } from '../src/warp/bitset.js';
import { parseSignedMessage } from '../src/warp/signed-message.js';
import type { CanonicalSet } from '../src/validators/canonical-set.js';
import { loadBackend } from '../src/bls/index.js';
import { hexToBytes } from '../src/warp/hex.js';
import { idToString } from '../src/warp/cb58.js';
import type { BenchOptions } from './args.js';
import { HostProcess } from './ipc.js';
import { runLoad, type RequestOutcome } from './load.js';
import { cpuStallSummary } from './cpu-pressure.js';
import { startPChainStub } from './pchain-stub.js';
import { BENCH_NETWORK_ID, buildScenario, type BenchValidator, type Scenario } from './scenario.js';
import type { ServiceMeasurement, StartRequest } from './service-host.js';
import type { ConnectRequest, PrepareRequest } from './signer-host.js';
import type { HostMeasurement } from './host-measurement.js';
import type { StartedNodes, StartNodesRequest } from './node-host.js';
import { bytesToHex } from '../src/warp/hex.js';
import { round, summarize, type Percentiles } from './stats.js';
import { destinationGas, type DestinationGas } from './warp-gas.js';
import { derivedFigures, type DerivedFigures } from './report.js';

import { STRATEGIES, UNVERIFIABLE, type Strategy } from './strategies.js';
import type { IcmServicesVersions } from './icm-services.js';
import { measureIcmServices } from './icm-strategy.js';
import { STUB_HEIGHT } from './pchain-stub.js';

export { STRATEGIES, type Strategy };

/** Config each strategy sets on its service (the verification it injects: service-host.ts). */
const STRATEGY_OVERRIDES: Record<Strategy, Record<string, unknown>> = {
  warpgate: {},
  warpgateAllSigners: { 'aggregation.minimizeSigners': false },
  perSignatureVerify: {},
  floor: {},
  icmServices: {},
};

/**
 * Handshakes under way at once while connecting validators. Each costs a pure-JS BLS proof on
 * the signer's side and a pure-JS pairing (100-250 ms on this machine) in the service's two
 * workers; more at once would outlast the service's 10 s handshake timeout.
 */
const CONNECT_WINDOW = 24;
const CONNECT_CHUNK = 8;
/** Connecting fails if this long passes without one more validator connecting. */
const CONNECT_STALL_MS = 60_000;
export const REQUEST_TIMEOUT_MS = 30_000;

export interface RunSample {
  /** Index among the timed runs. */
  run: number;
  latencyMs: number;
  idealMs: number;
  overheadMs: number;
  /** Validators in the signed message's bitset, and their share of the total weight. */
  signers: number;
  signedWeightPercent: number;
  /** The signed message's size, and the Warp precompile's gas to verify it at the destination (bench/warp-gas.ts). */
  signedMessageBytes: number;
  destinationGas: DestinationGas;
  /** How long some task on the machine waited for a core during the run, ms (Linux PSI; bench/cpu-pressure.ts). */
  cpuStallMs?: number;
}

export interface StrategyReport {
  latencyMs: Percentiles;
  idealMs: Percentiles;
  overheadMs: Percentiles;
  cpuMsPerAggregation: number;
  /**
   * The main thread's share of cpuMsPerAggregation (the event loop: peers, HTTP, the collection);
   * the rest is the other threads' (BLS workers, V8's GC helpers). Absent without Linux's /proc.
   */
  mainThreadCpuMsPerAggregation?: number;
  throughputPerSec: number;
  /** Signers per signed message over the runs, and the mean destination gas per message. */
  signersPerMessage: { mean: number; min: number; max: number };
  destinationGasPerMessage: DestinationGas;
  /**
   * Signatures ready at the final checks per aggregation (the signers and those the fewest signers
   * left out): what the message would carry without the fewest signers, on the very same runs.
   * The fewest signers' own checks: how many aggregations needed one and their mean wall time (a
   * pairing in the worker pool, queueing included). Files from before the fewest signers' sum was
   * checked alone call the first `provenPerMessage` (the final checks proved them all then).
   */
  fewestSigners?: { readyPerMessage: number; subsetChecks: number; subsetCheckMsMean: number };
  /**
   * Final checks (every one a foldAndCheck job: with the fold that completes the target, or alone)
   * and the worker tasks they ran in: more than one per task when concurrent aggregations' checks
   * waited for a thread and were made together. Absent from files before that, and 0 for the floor.
   */
  finalChecks?: { checks: number; tasks: number };
  aggregations: number;
  failures: number;
  firstFailure?: string;
  /**
   * The service process. icmServices (a Go binary, measured from outside through /proc) has only
   * the resident memory; the rest is warpgate's own account of itself.
   */
  service: {
    eventLoopDelayMs?: LoopDelayPercentiles;
    maxWorkerQueue?: number;
    peakRssMb: number;
    peakHeapUsedMb?: number;
    /** Resident memory when the timed runs started and ended: growth across runs would show a leak. */
    rssAtStartMb: number;
    rssAtEndMb: number;
    /** [seconds into the timed runs, resident MB], to see whether memory levels off. */
    rssTimelineMb: [number, number][];
    responses?: Record<string, number>;
    /**
     * Signature requests to validators per aggregation, by outcome (`cancelled`: outstanding when
     * the collection ended; the validator still answers, and the answer is read and dropped).
     */
    requestsPerAggregation?: Record<string, number>;
    /**
     * By the service's own clock, over the successful runs: `signersInMs`, from its first peer
     * request until the signers' weight had arrived (what it read, later than `idealMs` when the
     * answers wait for the CPU); `ownMs`, the rest of the aggregation, the service's own time
     * (before the first request, and after the signatures were in: the checks and the decision).
     */
    signersInMs?: Percentiles;
    ownMs?: Percentiles;
    cpuProfile?: string;
    /** The measured interval's `perf record` (bench --perf; bench/perf-summary.ts reads it). */
    perfData?: string;
  };
  /** Event-loop delay of the processes hosting the validators (their lateness adds to latency). */
  signerHostsEventLoopDelayMs: LoopDelayPercentiles;
  /**
   * CPU the simulated validators spent per aggregation (all host processes): on this one
   * machine it competes with the service for the same cores.
   */
  signerHostsCpuMsPerAggregation: number;
  connectSeconds: number;
  /**
   * Whether the after-run verification checked this strategy's signed messages as avalanchego
   * would. False only for `floor`, whose messages carry no real aggregate: for it the signers
   * bitset, network ID and quorum weight were checked, the signature was not.
   */
  answersVerified: boolean;
  samples: RunSample[];
  /** icmServices: the binary measured (its commit, avalanchego and Go), and its build time when this run built it. */
  versions?: IcmServicesVersions;
  buildSeconds?: number;
  /**
   * How long some task on the machine waited for a core during a run (Linux PSI): the median
   * over the runs, and the mean over the slowest 5% by overhead. Absent without PSI.
   */
  cpuStallMs?: { p50: number; slowestRunsMean: number };
}

interface LoopDelayPercentiles {
  p50: number;
  p99: number;
  max: number;
}

export interface BenchReport {
  validators: number;
  transport: 'ws' | 'p2p';
  quorumPercentage: number;
  quorumPercentageBuffer: number;
  runs: number;
  warmup: number;
  concurrency: number;
  backend: string;
  signerProcesses: number;
  /** The validators' processes' nice value (0: the service's own). */
  validatorsNice: number;
  /** The service's aggregation.fanOutExtraPercent when the run set it ('default' otherwise). */
  fanOutExtraPercent: number | 'default';
  /** The service process's V8 heap limit when the run set one. */
  serviceHeapMb: number | 'default';
  weights: string;
  latency: { distribution: 'lognormal'; medianMs: number; sigma: number };
  offlinePercent: number;
  byzantinePercent: number;
  offlineWeightPercent: number;
  byzantineWeightPercent: number;
  seed: string;
  /** Load average (1 min) when the run started and ended: other work on the machine skews every figure. */
  machine: { cpus: number; cpuModel: string; node: string; platform: string; loadAverage: { start: number; end: number } };
  setupSeconds: { scenario: number; signing: number };
  /** The service's signatureCache.maxSignatures when the run set it. */
  signatureCacheMax: number | 'default';
  /** The service's BLS worker threads (workers.threads), 'default' when the run kept the service's default. */
  workers: number | 'default';
  /** The service's p2p.ioShards, 'default' when the run kept the service's default (0: the main thread). */
  ioShards: number | 'default';
  /** The strategies this run measured (--strategies); each has its key below. */
  strategies: Strategy[];
  warpgate?: StrategyReport;
  warpgateAllSigners?: StrategyReport;
  perSignatureVerify?: StrategyReport;
  floor?: StrategyReport;
  icmServices?: StrategyReport;
  /** Every strategy signed each message at this P-Chain height ('default': each service's own choice). */
  pChainHeight?: number | 'default';
  /** Differences and ratios between the strategies measured, all from this one run (report.ts). */
  derived: DerivedFigures;
}

export class BenchRunError extends Error {
  override readonly name = 'BenchRunError';
}

export type Log = (line: string) => void;

/**
 * With icm-services in the run, every strategy signs at the same explicit P-Chain height (the
 * bench P-Chain's), so neither service's own choice of height tells them apart.
 */
export function pChainHeightOf(o: BenchOptions): { pChainHeight?: number } {
  return o.strategies.includes('icmServices') ? { pChainHeight: STUB_HEIGHT } : {};
}

const seconds = (ms: number): number => round(ms / 1000, 1);
const weightPercent = (w: bigint, total: bigint): number => Number((w * 10_000n) / total) / 100;

export interface SignerHost {
  host: HostProcess;
  validators: BenchValidator[];
}

/** Validators spread round-robin over the hosts, so each host gets a share of every weight class. */
function split(validators: BenchValidator[], hosts: number): BenchValidator[][] {
  const groups: BenchValidator[][] = Array.from({ length: hosts }, () => []);
  validators.forEach((v, i) => groups[i % hosts]!.push(v));
  return groups.filter((g) => g.length > 0);
}

/**
 * The validators dial the service (the peer protocol lets either side dial), CONNECT_WINDOW
 * handshakes at a time. The service dialing all of them at once (config `peers`) does not settle
 * beyond a few hundred on two cores: its 10 s handshake timers run while the proofs wait for the
 * workers, so handshakes time out and redial over and over.
 */
async function connectValidators(service: HostProcess, signers: SignerHost[], url: string, log: Log): Promise<void> {
  const total = signers.reduce((a, s) => a + s.validators.length, 0);
  const cursors = signers.map(() => 0);
  let launched = 0;
  const progress = new ConnectProgress(service, total, 'validators', log);
  while (progress.connected < total) {
    if (launched < total && launched - progress.connected < CONNECT_WINDOW) {
      const work: Promise<unknown>[] = [];
      signers.forEach((s, i) => {
        const from = cursors[i]!;
        const to = Math.min(s.validators.length, from + Math.ceil(CONNECT_CHUNK / signers.length));
        if (to <= from) return;
        cursors[i] = to;
        launched += to - from;
        const positions = Array.from({ length: to - from }, (_, k) => from + k);
        work.push(s.host.call({ type: 'connect', url, positions } satisfies ConnectRequest, 30_000));
      });
      await Promise.all(work);
      continue;
    }
    await progress.poll();
  }
}

/** --transport p2p: the service dials the nodes it finds through info.peers; waits until every one is connected. */
async function awaitDialled(service: HostProcess, total: number, log: Log): Promise<void> {
  const progress = new ConnectProgress(service, total, 'avalanchego nodes', log);
  while (progress.connected < total) await progress.poll();
}

/** Polls the service's count of connected validators, logs progress, and gives up after CONNECT_STALL_MS without one more. */
class ConnectProgress {
  connected = 0;
  private lastProgress = performance.now();
  private lastLogged = 0;

  constructor(
    private readonly service: HostProcess,
    private readonly total: number,
    private readonly what: string,
    private readonly log: Log,
  ) {}

  async poll(): Promise<void> {
    await new Promise((r) => setTimeout(r, 50));
    const now = await this.service.call<number>({ type: 'connected' }, 10_000);
    if (now > this.connected) {
      this.connected = now;
      this.lastProgress = performance.now();
    } else if (performance.now() - this.lastProgress > CONNECT_STALL_MS) {
      throw new BenchRunError(`only ${this.connected} of ${this.total} ${this.what} connected; none for ${CONNECT_STALL_MS / 1000} s`);
    }
    if (this.connected - this.lastLogged >= Math.max(50, this.total / 10) || this.connected === this.total) {
      this.lastLogged = this.connected;
      this.log(`  ${this.connected}/${this.total} ${this.what} connected`);
    }
  }
}

type Checked = Pick<RunSample, 'signers' | 'signedWeightPercent' | 'signedMessageBytes' | 'destinationGas'>;

/**
 * A `floor` answer's signers, read without the signature check its placeholder aggregate would
 * fail: the message parses, is for the bench network, and its signers bitset is well-formed and
 * holds quorum weight.
 */
export function readUnverified(bytes: Uint8Array, set: CanonicalSet, quorumPercentage: number, networkId: number): { signers: number[]; signedWeight: bigint } {
  const msg = parseSignedMessage(bytes);
  if (msg.unsigned.networkId !== networkId) throw new Error(`network ID is ${msg.unsigned.networkId}, expected ${networkId}`);
  const signers = decodeSigners(msg.signers, set.validators.length);
  const signedWeight = signers.reduce((w, i) => w + set.validators[i]!.weight, 0n);
  if (signers.length === 0 || !quorumReached(signedWeight, set.totalWeight, quorumPercentage)) {
    throw new Error(`its ${signers.length} signers hold ${signedWeight} of ${set.totalWeight}: not ${quorumPercentage}%`);
  }
  return { signers, signedWeight };
}

/**
 * Checks every signed message as avalanchego would (for `floor`: only readUnverified's checks);
 * returns each one's signers, signed weight share, size and destination gas.
 */
export function verifyAnswers(strategy: Strategy, scenario: Scenario, outcomes: RequestOutcome[], o: BenchOptions): Map<number, Checked> {
  const set = canonicalSet(
    scenario.validators.map((v) => ({ nodeId: v.nodeId, weight: v.weight, publicKey: hexToBytes(v.publicKeyHex) })),
    loadBackend('blst'),
  );
  const checked = new Map<number, Checked>();
  for (const r of outcomes) {
    if (!r.signedMessageHex) continue;
    const bytes = hexToBytes(r.signedMessageHex);
    let result: { signers: number[]; signedWeight: bigint };
    if (UNVERIFIABLE.has(strategy)) {
      try {
        result = readUnverified(bytes, set, o.quorumPercentage, BENCH_NETWORK_ID);
      } catch (err) {
        throw new BenchRunError(`${strategy}: the service returned a malformed signed message (run ${r.message}): ${err instanceof Error ? err.message : String(err)}`);
      }
    } else {
      const verified = verifySignedMessage(bytes, set, o.quorumPercentage, BENCH_NETWORK_ID);
      if (!verified.valid) throw new BenchRunError(`the service returned a signed message that does not verify (run ${r.message}): ${verified.reason}`);
      result = verified;
    }
    checked.set(r.message, {
      signers: result.signers.length,
      signedWeightPercent: weightPercent(result.signedWeight, set.totalWeight),
      signedMessageBytes: bytes.length,
      destinationGas: destinationGas(bytes.length, result.signers.length),
    });
  }
  return checked;
}

async function measureStrategy(
  strategy: Strategy,
  o: BenchOptions,
  scenario: Scenario,
  signers: SignerHost[],
  pchainUrl: string,
  log: Log,
): Promise<StrategyReport> {
  const heap = o.serviceHeapMb === undefined ? [] : [`--max-old-space-size=${o.serviceHeapMb}`];
  // Names for the JIT code in a perf recording: V8 writes each code object's name, address and
  // time to jit-PID.dump in the working directory (perf inject --jit reads it; a name map
  // without times, --perf-basic-prof, names a reused address after whichever code had it).
  const perfDir = o.perfDir ? resolve(o.perfDir) : undefined;
  const perfNames = perfDir ? ['--perf-prof', '--no-logfile-per-isolate', `--logfile=${join(perfDir, `service-${strategy}-${o.validators}.v8.log`)}`] : [];
  const service = HostProcess.start(`service (${strategy})`, 'bench/service-host.ts', [...heap, ...perfNames], perfDir);
  try {
    const start: StartRequest = {
      type: 'start',
      strategy,
      overrides: {
        port: 0,
        host: '127.0.0.1',
        logLevel: 'warn',
        'upstreams.node': pchainUrl,
        localNetworkId: BENCH_NETWORK_ID,
        'bls.backend': o.backend,
        'aggregation.maxConcurrent': Math.max(64, o.concurrency * 2),
        // Every validator dials in from 127.0.0.1, CONNECT_WINDOW at a time, each proving its key
        // on a busy machine: the per-address limits a public deployment keeps would refuse them.
        // Admission stays on: the scenario's subnet is read at start, so its validators get in.
        'readiness.subnets': [idToString(scenario.subnetId)],
        'peerAdmission.maxInboundPeers': Math.max(10_000, o.validators),
        'peerAdmission.maxPendingPerIp': 10_000,
        'peerAdmission.handshakesPerMinutePerIp': 0,
        'peerAdmission.helloTimeoutMs': 30_000,
        // The load comes from one loopback client, hundreds of requests a second.
        'rateLimit.aggregationsPerMinute': 0,
        // --transport p2p: the service dials every node (found through info.peers), many at once.
        'p2p.enabled': o.transport === 'p2p',
        'p2p.maxPeers': Math.max(1000, o.validators),
        ...(o.fanOutExtraPercent === undefined ? {} : { 'aggregation.fanOutExtraPercent': o.fanOutExtraPercent }),
        ...(o.signatureCacheMax === undefined ? {} : { 'signatureCache.maxSignatures': o.signatureCacheMax }),
        ...(o.workers === undefined ? {} : { 'workers.threads': o.workers }),
        ...(o.ioShards === undefined ? {} : { 'p2p.ioShards': o.ioShards }),
        ...STRATEGY_OVERRIDES[strategy],
      },
    };
    const { url } = await service.call<{ url: string }>(start, 120_000);
    log(`${strategy}: service up at ${url}; connecting ${signers.reduce((a, s) => a + s.validators.length, 0)} validators`);
    const connectStarted = performance.now();
    if (o.transport === 'p2p') await awaitDialled(service, signers.reduce((a, s) => a + s.validators.length, 0), log);
    else await connectValidators(service, signers, `${url.replace(/^http/, 'ws')}/v1/peers`, log);
    const connectSeconds = seconds(performance.now() - connectStarted);

    const load = (messagesHex: string[], concurrency: number) =>
      runLoad({
        url,
        messagesHex,
        concurrency,
        quorumPercentage: o.quorumPercentage,
        quorumPercentageBuffer: o.quorumPercentageBuffer,
        timeoutMs: REQUEST_TIMEOUT_MS,
        ...pChainHeightOf(o),
      });
    // Warm-ups run at the timed concurrency, so that thousands of them take seconds, not minutes.
    // It takes that many for the timed runs to see the code as a service that has run a while
    // does: functions called once per aggregation reach V8's optimizing compiler only after about
    // a thousand calls. At 100 x 32, V8 still optimized 132 of the service's functions during the
    // 640 timed runs after 200 warm-ups, 26 after 3,000 (node --trace-opt).
    if (scenario.warmup > 0) {
      const warm = await load(scenario.messagesHex.slice(0, scenario.warmup), o.concurrency);
      const failed = warm.outcomes.find((r) => r.error);
      if (failed) throw new BenchRunError(`${strategy}: a warm-up aggregation failed (HTTP ${failed.status}): ${failed.error}`);
    }

    log(`${strategy}: timing ${o.runs} aggregations, ${o.concurrency} at a time`);
    const profileFile = o.cpuProfileDir ? join(o.cpuProfileDir, `service-${strategy}-${o.validators}.cpuprofile`) : undefined;
    const perfFile = perfDir ? join(perfDir, `service-${strategy}-${o.validators}.perf.data`) : undefined;
    await service.call({ type: 'measure-start', ...(profileFile ? { cpuProfileFile: profileFile } : {}), ...(perfFile ? { perfDataFile: perfFile } : {}) }, 20_000);
    await Promise.all(signers.map((s) => s.host.call({ type: 'measure-start' }, 10_000)));
    const timed = await load(scenario.messagesHex.slice(scenario.warmup), o.concurrency);
    const measured = await service.call<ServiceMeasurement>({ type: 'measure-stop' }, 120_000);
    const signerLoops = await Promise.all(signers.map((s) => s.host.call<HostMeasurement>({ type: 'measure-stop' }, 10_000)));
    await Promise.all(signers.map((s) => s.host.call({ type: 'disconnect' }, 60_000)));

    const answersVerified = !UNVERIFIABLE.has(strategy);
    const checked = verifyAnswers(strategy, scenario, timed.outcomes, o);
    log(
      answersVerified
        ? `${strategy}: every signed message verified as avalanchego would`
        : `${strategy}: signature verification SKIPPED (its messages carry a placeholder aggregate); signers, network and quorum weight read`,
    );
    const { aggregations, figures } = timedFigures(strategy, scenario, timed, checked, signerLoops);
    const mb = (bytes: number): number => round(bytes / 2 ** 20, 1);
    return {
      ...figures,
      cpuMsPerAggregation: round((measured.cpuUserMs + measured.cpuSystemMs) / aggregations),
      ...(measured.mainThreadCpuMs !== undefined ? { mainThreadCpuMsPerAggregation: round(measured.mainThreadCpuMs / aggregations) } : {}),
      fewestSigners: {
        readyPerMessage: round(measured.totals.ready / aggregations, 1),
        subsetChecks: measured.totals.subsetChecks,
        subsetCheckMsMean: measured.totals.subsetChecks > 0 ? round((measured.totals.subsetCheckSeconds * 1000) / measured.totals.subsetChecks) : 0,
      },
      finalChecks: { checks: measured.totals.checkJobs, tasks: measured.totals.checkTasks },
      service: {
        eventLoopDelayMs: { p50: round(measured.eventLoopDelay.p50Ms), p99: round(measured.eventLoopDelay.p99Ms), max: round(measured.eventLoopDelay.maxMs) },
        maxWorkerQueue: measured.maxWorkerQueue,
        peakRssMb: mb(measured.peakRssBytes),
        peakHeapUsedMb: mb(measured.peakHeapUsedBytes),
        rssAtStartMb: mb(measured.rssAtStartBytes),
        rssAtEndMb: mb(measured.rssAtEndBytes),
        rssTimelineMb: measured.rssTimeline.map(([ms, bytes]) => [round(ms / 1000, 1), mb(bytes)]),
        responses: measured.responses,
        requestsPerAggregation: Object.fromEntries(Object.entries(measured.requests).map(([k, n]) => [k, round(n / timed.outcomes.length, 1)])),
        signersInMs: summarize(measured.aggregations.map((a) => round(a.signersInMs))),
        ownMs: summarize(measured.aggregations.map((a) => round(a.ms - a.signersInMs))),
        ...(measured.cpuProfileFile ? { cpuProfile: measured.cpuProfileFile } : {}),
        ...(measured.perfDataFile ? { perfData: measured.perfDataFile } : {}),
      },
      connectSeconds,
      answersVerified,
    };
  } finally {
    await service.stop();
  }
}

/**
 * What every strategy's report says of its timed aggregations, whichever service ran them: the
 * latency, signers, gas and failures of the answers, and what the signer hosts spent. Each
 * strategy adds its own service's account (CPU, memory, its internals) beside these.
 */
export function timedFigures(strategy: string, scenario: Scenario, timed: { outcomes: RequestOutcome[]; wallMs: number }, checked: Map<number, Checked>, signerLoops: HostMeasurement[]) {
  const ok = timed.outcomes.filter((r) => !r.error);
  const failures = timed.outcomes.filter((r) => r.error);
  if (ok.length === 0) throw new BenchRunError(`${strategy}: every aggregation failed; the first (HTTP ${failures[0]?.status}): ${failures[0]?.error}`);
  const samples: RunSample[] = ok.map((r) => {
    const idealMs = scenario.idealMs[scenario.warmup + r.message]!;
    const stall = r.cpuStallMs === undefined ? {} : { cpuStallMs: round(r.cpuStallMs) };
    return { run: r.message, latencyMs: round(r.latencyMs), idealMs, overheadMs: round(r.latencyMs - idealMs), ...checked.get(r.message)!, ...stall };
  });
  const mean = (xs: number[]): number => round(xs.reduce((a, x) => a + x, 0) / xs.length, 1);
  const signerCounts = samples.map((x) => x.signers);
  const stall = cpuStallSummary(samples);
  return {
    aggregations: ok.length,
    figures: {
      latencyMs: summarize(samples.map((s) => s.latencyMs)),
      idealMs: summarize(samples.map((s) => s.idealMs)),
      overheadMs: summarize(samples.map((s) => s.overheadMs)),
      throughputPerSec: round((ok.length * 1000) / timed.wallMs, 1),
      signersPerMessage: { mean: mean(signerCounts), min: Math.min(...signerCounts), max: Math.max(...signerCounts) },
      destinationGasPerMessage: { granite: mean(samples.map((x) => x.destinationGas.granite)), preGranite: mean(samples.map((x) => x.destinationGas.preGranite)) },
      aggregations: ok.length,
      failures: failures.length,
      ...(failures[0] ? { firstFailure: `HTTP ${failures[0].status}: ${failures[0].error}` } : {}),
      signerHostsEventLoopDelayMs: {
        p50: round(Math.max(...signerLoops.map((l) => l.p50Ms))),
        p99: round(Math.max(...signerLoops.map((l) => l.p99Ms))),
        max: round(Math.max(...signerLoops.map((l) => l.maxMs))),
      },
      signerHostsCpuMsPerAggregation: round(signerLoops.reduce((a, l) => a + l.cpuMs, 0) / ok.length),
      samples,
      ...(stall ? { cpuStallMs: stall } : {}),
    },
  };
}

export async function runBench(o: BenchOptions, log: Log): Promise<BenchReport> {
  const t0 = performance.now();
  const loadAtStart = loadavg()[0]!;
  const scenario = buildScenario(o);
  const scenarioMs = performance.now() - t0;
  const online = scenario.validators.filter((v) => v.role !== 'offline');
  log(
    `${o.validators} validators (${o.weights}), ${online.length} online of which ${online.filter((v) => v.role === 'byzantine').length} byzantine; ` +
      `${scenario.messagesHex.length} messages; median ideal ${summarize(scenario.idealMs.slice(o.warmup)).p50} ms`,
  );
  const stub = await startPChainStub(scenario);
  const signers: SignerHost[] = [];
  try {
    const entry = o.transport === 'p2p' ? 'bench/node-host.ts' : 'bench/signer-host.ts';
    for (const [i, validators] of split(online, o.signerProcesses).entries()) {
      signers.push({ host: HostProcess.start(`${o.transport === 'p2p' ? 'avalanchego' : 'signer'} host ${i}`, entry), validators });
    }
    const signingStarted = performance.now();
    log(`signing ${online.length} × ${scenario.messagesHex.length} messages ahead of time`);
    // About 0.6 ms per signature with blst; generous for slow machines.
    const signingTimeout = (s: SignerHost): number => 60_000 + s.validators.length * scenario.messagesHex.length * 10;
    const delaysOf = (v: BenchValidator): number[] => scenario.delaysMs[v.index]!;
    if (o.transport === 'p2p') {
      const started = await Promise.all(
        signers.map((s) =>
          s.host.call<StartedNodes, StartNodesRequest>(
            {
              type: 'start-nodes',
              networkId: BENCH_NETWORK_ID,
              chainIdHex: bytesToHex(scenario.blockchainId),
              subnetIdHex: bytesToHex(scenario.subnetId),
              messagesHex: scenario.messagesHex,
              validators: s.validators.map((v) => ({ ...v.staking!, secretKeyHex: v.secretKeyHex, byzantine: v.role === 'byzantine', delaysMs: delaysOf(v) })),
            } satisfies StartNodesRequest,
            signingTimeout(s),
          ),
        ),
      );
      stub.setPeers(started.flatMap((s) => s.nodes));
    } else {
      await Promise.all(
        signers.map((s) =>
          s.host.call(
            {
              type: 'prepare',
              messagesHex: scenario.messagesHex,
              validators: s.validators.map((v) => ({ secretKeyHex: v.secretKeyHex, byzantine: v.role === 'byzantine', delaysMs: delaysOf(v) })),
            } satisfies PrepareRequest,
            signingTimeout(s),
          ),
        ),
      );
    }
    const signingMs = performance.now() - signingStarted;
    if (o.validatorsNice > 0) {
      const threads = signers.reduce((n, s) => n + s.host.renice(o.validatorsNice), 0);
      log(`validators' processes at nice ${o.validatorsNice} (${threads} threads): the service gets the cores first`);
    }

    const results: Partial<Record<Strategy, StrategyReport>> = {};
    for (const strategy of o.strategies) {
      results[strategy] =
        strategy === 'icmServices'
          ? await measureIcmServices({ o, scenario, signers, pchainUrl: stub.url, peers: stub.peers(), log })
          : await measureStrategy(strategy, o, scenario, signers, stub.url, log);
    }

    const model = cpus()[0]?.model ?? 'unknown';
    return {
      validators: o.validators,
      transport: o.transport,
      quorumPercentage: o.quorumPercentage,
      quorumPercentageBuffer: o.quorumPercentageBuffer,
      runs: o.runs,
      warmup: o.warmup,
      concurrency: o.concurrency,
      backend: o.backend,
      signerProcesses: o.signerProcesses,
      validatorsNice: o.validatorsNice,
      fanOutExtraPercent: o.fanOutExtraPercent ?? 'default',
      serviceHeapMb: o.serviceHeapMb ?? 'default',
      weights: o.weights,
      latency: { distribution: 'lognormal', medianMs: o.latency.medianMs, sigma: o.latency.sigma },
      offlinePercent: o.offlinePercent,
      byzantinePercent: o.byzantinePercent,
      offlineWeightPercent: weightPercent(scenario.offlineWeight, scenario.totalWeight),
      byzantineWeightPercent: weightPercent(scenario.byzantineWeight, scenario.totalWeight),
      seed: o.seed,
      machine: {
        cpus: cpus().length,
        cpuModel: model,
        node: process.version,
        platform: `${process.platform}/${process.arch}`,
        loadAverage: { start: round(loadAtStart, 2), end: round(loadavg()[0]!, 2) },
      },
      setupSeconds: { scenario: seconds(scenarioMs), signing: seconds(signingMs) },
      signatureCacheMax: o.signatureCacheMax ?? 'default',
      workers: o.workers ?? 'default',
      ioShards: o.ioShards ?? 'default',
      strategies: [...o.strategies],
      pChainHeight: pChainHeightOf(o).pChainHeight ?? 'default',
      ...results,
      derived: derivedFigures(results),
    };
  } finally {
    await Promise.all(signers.map((s) => s.host.stop()));
    await stub.close();
  }
}
