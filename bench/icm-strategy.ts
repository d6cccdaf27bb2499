// The `icmServices` strategy: the real icm-services signature-aggregator measured as the harness
// measures warpgate (harness.ts measureStrategy): the same simulated avalanchego nodes, the same
// messages and delays, the same explicit P-Chain height, one fresh message per aggregation, timing
// only once it is connected to every online validator; its CPU and memory are its own process's
// (all threads, /proc), and every signed message it returns is verified as avalanchego would.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deriveStakingKeyPair } from '../src/devnet/genesis/staking.js';
import { loadStakingIdentity } from '../src/p2p/index.js';
import { cb58Encode } from '../src/warp/cb58.js';
import type { BenchOptions } from './args.js';
import type { HostMeasurement } from './host-measurement.js';
import { BenchRunError, pChainHeightOf, REQUEST_TIMEOUT_MS, timedFigures, verifyAnswers, type Log, type SignerHost, type StrategyReport } from './harness.js';
import { ensureIcmServices, freePort, icmServicesConfig, IcmServicesProcess, procSample } from './icm-services.js';
import { runLoad } from './load.js';
import type { ReadyWithRequest } from './node-host.js';
import type { Scenario } from './scenario.js';
import { round } from './stats.js';

/** Connecting fails if this long passes without one more validator connected. */
const CONNECT_STALL_MS = 120_000;
const RSS_SAMPLE_MS = 500;

export interface IcmServicesRun {
  o: BenchOptions;
  scenario: Scenario;
  signers: SignerHost[];
  pchainUrl: string;
  /** Where every simulated node listens (what info.peers lists). */
  peers: readonly { nodeId: string; port: number }[];
  log: Log;
}

/** Where the config goes: next to the run's JSON (FILE.json → FILE.icm-services.json), else a temporary folder. */
export function configPathFor(json: string | undefined, scratch: string): string {
  if (!json) return join(scratch, 'icm-services.json');
  return `${json.endsWith('.json') ? json.slice(0, -'.json'.length) : json}.icm-services.json`;
}

async function awaitConnected(service: IcmServicesProcess, signers: SignerHost[], nodeId: string, total: number, log: Log): Promise<void> {
  let connected = 0;
  let lastProgress = performance.now();
  let lastLogged = 0;
  for (;;) {
    if (!service.running) throw new BenchRunError('icmServices: the icm-services process exited while connecting (its log is named above)');
    const counts = await Promise.all(signers.map((s) => s.host.call<number, ReadyWithRequest>({ type: 'ready-with', nodeId }, 10_000)));
    const now = counts.reduce((a, n) => a + n, 0);
    if (now > connected) {
      connected = now;
      lastProgress = performance.now();
    } else if (performance.now() - lastProgress > CONNECT_STALL_MS) {
      throw new BenchRunError(`icmServices: only ${connected} of ${total} avalanchego nodes connected; none for ${CONNECT_STALL_MS / 1000} s`);
    }
    if (connected - lastLogged >= Math.max(50, total / 10) || (connected === total && lastLogged !== total)) {
      lastLogged = connected;
      log(`  ${connected}/${total} avalanchego nodes connected`);
    }
    // Full connected stake by the nodes' count, and icm-services' own word (/health: its quorum of stake).
    if (connected === total && (await service.healthy())) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function measureIcmServices(run: IcmServicesRun): Promise<StrategyReport> {
  const { o, scenario, signers, log } = run;
  const { binary, versions, buildSeconds } = ensureIcmServices(log);
  const scratch = mkdtempSync(join(tmpdir(), 'warpgate-bench-icm-'));
  // A fixed staking identity: the nodes tell the bench when their handshake with this NodeID is done.
  const staking = deriveStakingKeyPair('warpgate-bench', 'icm-services');
  const nodeId = loadStakingIdentity(staking.certPem, staking.keyPem).nodeId;
  const tlsCertPath = join(scratch, 'staker.crt');
  const tlsKeyPath = join(scratch, 'staker.key');
  writeFileSync(tlsCertPath, staking.certPem);
  writeFileSync(tlsKeyPath, staking.keyPem, { mode: 0o600 });
  const config = icmServicesConfig({
    pchainUrl: run.pchainUrl,
    subnetIdCb58: cb58Encode(scenario.subnetId),
    peers: run.peers,
    apiPort: await freePort(),
    metricsPort: await freePort(),
    tlsCertPath,
    tlsKeyPath,
  });
  const configPath = configPathFor(o.json, scratch);
  mkdirSync(dirname(configPath), { recursive: true });
  const logPath = join(scratch, 'icm-services.log');
  const service = IcmServicesProcess.start(binary, configPath, config, logPath);
  const total = signers.reduce((a, s) => a + s.validators.length, 0);
  log(`icmServices: icm-services ${versions.icmServicesCommit} (avalanchego ${versions.avalanchego}, ${versions.go}) at ${service.url}, NodeID ${nodeId}; config ${configPath}, log ${logPath}`);
  let keepScratch = false;
  try {
    const connectStarted = performance.now();
    await awaitConnected(service, signers, nodeId, total, log);
    const connectSeconds = round((performance.now() - connectStarted) / 1000, 1);

    const load = (messagesHex: string[]) =>
      runLoad({
        url: service.url,
        api: 'icmServices',
        messagesHex,
        concurrency: o.concurrency,
        quorumPercentage: o.quorumPercentage,
        quorumPercentageBuffer: o.quorumPercentageBuffer,
        timeoutMs: REQUEST_TIMEOUT_MS,
        ...pChainHeightOf(o),
      });
    if (scenario.warmup > 0) {
      const warm = await load(scenario.messagesHex.slice(0, scenario.warmup));
      const failed = warm.outcomes.find((r) => r.error);
      if (failed) throw new BenchRunError(`icmServices: a warm-up aggregation failed (HTTP ${failed.status}): ${failed.error}`);
    }

    log(`icmServices: timing ${o.runs} aggregations, ${o.concurrency} at a time`);
    await Promise.all(signers.map((s) => s.host.call({ type: 'measure-start' }, 10_000)));
    const before = procSample(service.pid);
    const timeline: [number, number][] = [[0, before.rssBytes]];
    const timingStarted = performance.now();
    const sampler = setInterval(() => {
      if (service.running) timeline.push([performance.now() - timingStarted, procSample(service.pid).rssBytes]);
    }, RSS_SAMPLE_MS);
    const timed = await load(scenario.messagesHex.slice(scenario.warmup));
    clearInterval(sampler);
    const after = procSample(service.pid);
    timeline.push([performance.now() - timingStarted, after.rssBytes]);
    const signerLoops = await Promise.all(signers.map((s) => s.host.call<HostMeasurement>({ type: 'measure-stop' }, 10_000)));

    const checked = verifyAnswers('icmServices', scenario, timed.outcomes, o);
    log('icmServices: every signed message verified as avalanchego would');
    const { aggregations, figures } = timedFigures('icmServices', scenario, timed, checked, signerLoops);
    const mb = (bytes: number): number => round(bytes / 2 ** 20, 1);
    return {
      ...figures,
      cpuMsPerAggregation: round((after.cpuMs - before.cpuMs) / aggregations),
      service: {
        peakRssMb: mb(after.peakRssBytes),
        rssAtStartMb: mb(before.rssBytes),
        rssAtEndMb: mb(after.rssBytes),
        rssTimelineMb: timeline.map(([ms, bytes]) => [round(ms / 1000, 1), mb(bytes)]),
      },
      connectSeconds,
      answersVerified: true,
      versions,
      ...(buildSeconds === undefined ? {} : { buildSeconds }),
    };
  } catch (err) {
    keepScratch = true;
    throw err;
  } finally {
    await service.stop();
    await Promise.all(signers.map((s) => s.host.call({ type: 'disconnect' }, 60_000)));
    // A failed run keeps icm-services' log (its path is logged above).
    if (!keepScratch) rmSync(scratch, { recursive: true, force: true });
  }
}
