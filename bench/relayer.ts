// npm run bench:relayer -- [--network FILE] [--messages 60] [--rate 2] [--warmup 2]
//   [--required-gas-limit 200000] [--payload-bytes 64] [--deadline-s 600] [--json FILE]
//
// warpgate's relayer on the real interop network (npm run interop:network: avalanchego's C-Chain
// and a subnet-evm L1, our Teleporter messenger on both): `warpgate relay --config
// <relayerConfig>` from the compiled dist/ (what a user runs), relaying both ways while the
// bench sends `--messages` Teleporter messages each way at `--rate` messages per second each
// (C-Chain → L1 from funded[1], L1 → C-Chain from funded[2]; funded[0] is the relayer's key).
// `--warmup` messages each way go first and are not counted. Per direction it reports:
//   - latency from the source block's timestamp to the delivery block's timestamp (both chains
//     give block times to the millisecond after Granite), and from the send's log reaching the
//     bench to the delivery block's timestamp;
//   - messages delivered per second at that load, next to the rate offered;
//   - gas per delivered message (the delivery transaction's receipt gasUsed), and the gas limit
//     the relayer set;
//   - the relayer's own view from its /metrics (its delivery histogram's mean, retries);
//   - delivery transactions the relayer's key sent to the messenger (reverted ones included):
//     one per message when nothing went wrong;
// and the relayer process's CPU (all its threads, /proc) and peak resident memory over the timed
// window (from the first timed send to the last delivery seen).
//
// `--network FILE` reads the JSON line `npm run interop:network` printed (saved to FILE) and leaves
// that network running; without it the bench starts one itself and stops it at the end.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { cpuStallUs } from './cpu-pressure.js';
import { readProc } from './proc.js';
import { round } from './stats.js';
import { statCpuMs } from './thread-cpu.js';
import { REPO, type NetworkDescription } from '../test/interop/paths.js';
import { benchChains, MessengerLogs, sendAtRate, type BenchChain, type Submission } from './relayer-load.js';
import { collectDirection } from './relayer-collect.js';
import { metricDelta, parseMetrics, reasonsInLog } from './relayer-figures.js';

const { values: args } = parseArgs({
  options: {
    network: { type: 'string' },
    messages: { type: 'string', default: '60' },
    rate: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
    'required-gas-limit': { type: 'string', default: '200000' },
    'payload-bytes': { type: 'string', default: '64' },
    'deadline-s': { type: 'string', default: '600' },
    json: { type: 'string' },
  },
});
const MESSAGES = Number(args.messages);
const RATE = Number(args.rate);
const WARMUP = Number(args.warmup);
const REQUIRED_GAS = BigInt(args['required-gas-limit']);
const PAYLOAD_BYTES = Number(args['payload-bytes']);
const DEADLINE_MS = Number(args['deadline-s']) * 1000;
if (!(MESSAGES >= 2 && RATE > 0 && WARMUP >= 0 && PAYLOAD_BYTES >= 1 && DEADLINE_MS > 0)) throw new Error('--messages ≥ 2, --rate > 0, --warmup ≥ 0, --payload-bytes ≥ 1, --deadline-s > 0');
/** How often the bench reads the messenger's logs: the resolution of "the send reached the bench". */
const POLL_MS = 100;
const work = mkdtempSync(join(tmpdir(), 'warpgate-relayer-bench-'));
const say = (line: string): void => void process.stderr.write(`relayer bench: ${line}\n`);

/** The network: read from --network, or started here (interop/network.sh, which builds first). */
async function network(): Promise<{ net: NetworkDescription; stop: () => Promise<void> }> {
  if (args.network) return { net: JSON.parse(readFileSync(args.network, 'utf8')) as NetworkDescription, stop: async () => undefined };
  say('starting npm run interop:network (minutes)');
  const child = spawn('bash', [join(REPO, 'interop/network.sh'), '-start-timeout', '20m'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.pipe(createWriteStream(join(work, 'network.log')));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`interop network exited (${code}) before it was healthy; log ${join(work, 'network.log')}`)));
  });
  return {
    net: JSON.parse(line) as NetworkDescription,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

interface Relayer {
  child: ChildProcess;
  url: string;
  /** Its stdout (pino's JSON lines), for the reasons it gave during the window. */
  lines: string[];
}

/** `node bin/warpgate.js relay --config <relayerConfig>` from a fresh dist/, ready (/ready 200). */
async function startRelayer(configPath: string): Promise<Relayer> {
  const build = spawnSync(process.execPath, [join(REPO, 'scripts/build.mjs'), '--if-stale'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status !== 0) throw new Error('npm run build failed');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('WARPGATE_')));
  const child = spawn(process.execPath, [join(REPO, 'bin/warpgate.js'), 'relay', '--config', configPath], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const log = createWriteStream(join(work, 'relayer.log'));
  child.stderr!.pipe(log);
  const lines: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      log.write(`${l}\n`);
      if (lines.length < 1_000_000) lines.push(l);
      if (l.includes('"warpgate listening"')) resolve((JSON.parse(l) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`warpgate relay exited (${code}); log ${join(work, 'relayer.log')}`)));
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    const status = await fetch(`${url}/ready`).then((r) => r.status, () => 0);
    if (status === 200) return { child, url, lines };
    if (Date.now() > deadline) throw new Error(`warpgate relay not ready within 180 s (${url}/ready: ${status})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * The relayer's /metrics once it counts at least `delivered` deliveries on every route since it
 * started: it counts one when it has the receipt, which may be a moment after the bench saw
 * the delivery's log, and a window's counts must not miss its last deliveries (nor take the
 * warm-up's).
 */
async function metricsAfter(url: string, routes: readonly string[], delivered: number): Promise<Map<string, number>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = parseMetrics(await (await fetch(`${url}/metrics`)).text());
    const behind = routes.filter((route) => metricDelta(new Map(), m, 'warpgate_relayer_messages_total', { route, outcome: 'delivered' }) < delivered);
    if (behind.length === 0) return m;
    if (Date.now() > deadline) throw new Error(`the relayer's metrics count fewer than ${delivered} deliveries on ${behind.join(', ')} 30 s after the bench saw them`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The relayer process's CPU so far (all threads) and its peak resident set. */
function processUsage(pid: number): { cpuMs: number; peakRssMb: number | undefined } {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === undefined) throw new Error(`no /proc/${pid}/stat: the bench measures the relayer's CPU through Linux's /proc`);
  const hwm = readProc(`/proc/${pid}/status`)?.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
  return { cpuMs: statCpuMs(stat), peakRssMb: hwm === undefined ? undefined : round(Number(hwm) / 1024, 0) };
}

function relayerAddress(net: NetworkDescription, configPath: string): Hex {
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as { relayer: { keys: { file?: string }[] } };
  const file = config.relayer.keys[0]?.file;
  const key = file ? readFileSync(file, 'utf8').trim() : net.funded[0]!.privateKey;
  return privateKeyToAccount((key.startsWith('0x') ? key : `0x${key}`) as Hex).address;
}

function git(...a: string[]): string {
  return spawnSync('git', a, { cwd: REPO, encoding: 'utf8' }).stdout.trim();
}

interface Direction {
  name: string;
  source: BenchChain;
  destination: BenchChain;
  sends: MessengerLogs;
  receives: MessengerLogs;
}

const { net, stop: stopNetwork } = await network();
let relayer: Relayer | undefined;
const stopAll = async (): Promise<void> => {
  if (relayer && relayer.child.exitCode === null && relayer.child.signalCode === null) {
    relayer.child.kill('SIGTERM');
    await once(relayer.child, 'exit');
  }
  await stopNetwork();
};
process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
try {
  const { cChain, l1 } = benchChains(net);
  const [, keyToL1, keyToC] = net.funded;
  if (!keyToL1 || !keyToC) throw new Error('the network has fewer than three funded keys');
  const heads = { c: await cChain.client.getBlockNumber(), l: await l1.client.getBlockNumber() };
  relayer = await startRelayer(net.relayerConfig);
  say(`warpgate relay ready at ${relayer.url} (log ${join(work, 'relayer.log')})`);
  const logs = (chain: BenchChain, from: bigint, event: 'SendCrossChainMessage' | 'ReceiveCrossChainMessage'): MessengerLogs => new MessengerLogs(chain, event, from + 1n, POLL_MS);
  const directions: Direction[] = [
    { name: 'C-Chain → L1', source: cChain, destination: l1, sends: logs(cChain, heads.c, 'SendCrossChainMessage'), receives: logs(l1, heads.l, 'ReceiveCrossChainMessage') },
    { name: 'L1 → C-Chain', source: l1, destination: cChain, sends: logs(l1, heads.l, 'SendCrossChainMessage'), receives: logs(cChain, heads.c, 'ReceiveCrossChainMessage') },
  ];
  for (const d of directions) {
    d.sends.start();
    d.receives.start();
  }
  const keys = [keyToL1, keyToC];
  const label = `bench ${Date.now()}`;
  /** Sends `count` each way at the rate, waits until each send is in a block and delivered. */
  const sendAndDeliver = async (count: number, tag: string): Promise<Submission[][]> => {
    const submitted = await Promise.all(directions.map((d, i) => sendAtRate({ source: d.source, destination: d.destination, key: keys[i]!, count, perSecond: RATE, requiredGasLimit: REQUIRED_GAS, payloadBytes: PAYLOAD_BYTES, label: `${label} ${tag}` })));
    await Promise.all(
      directions.map(async (d, i) => {
        const hashes = new Set(submitted[i]!.map((s) => s.txHash));
        const deadline = Date.now() + 120_000;
        while ([...d.sends.byMessage.values()].filter((l) => hashes.has(l.txHash)).length < hashes.size) {
          if (Date.now() > deadline) throw new Error(`${tag} sends ${d.name} not in a block within 120 s`);
          await new Promise((r) => setTimeout(r, POLL_MS));
        }
        const ids = [...d.sends.byMessage.values()].filter((l) => hashes.has(l.txHash)).map((l) => l.messageId);
        await d.receives.waitFor(ids, DEADLINE_MS, `${tag} messages ${d.name}`);
      }),
    );
    return submitted;
  };
  if (WARMUP > 0) {
    say(`warm-up: ${WARMUP} message(s) each way`);
    await sendAndDeliver(WARMUP, 'warm-up');
  }
  say(`timed: ${MESSAGES} messages each way at ${RATE}/s each`);
  const windowFrom = { c: await cChain.client.getBlockNumber(), l: await l1.client.getBlockNumber() };
  const routes = directions.map((d) => `${d.source.blockchainId}->${d.destination.blockchainId}`);
  const m0 = await metricsAfter(relayer.url, routes, WARMUP);
  const u0 = processUsage(relayer.child.pid!);
  const stall0 = cpuStallUs();
  const load0 = loadavg()[0]!;
  const t0 = performance.now();
  const clock0 = Date.now();
  const submitted = await sendAndDeliver(MESSAGES, 'timed');
  const wallMs = performance.now() - t0;
  const clock1 = Date.now();
  const u1 = processUsage(relayer.child.pid!);
  const stall1 = cpuStallUs();
  const m1 = await metricsAfter(relayer.url, routes, WARMUP + MESSAGES);
  const load1 = loadavg()[0]!;
  // A moment for any second delivery transaction to land in a block, where the count would see it.
  await new Promise((r) => setTimeout(r, 3000));
  const windowTo = { c: await cChain.client.getBlockNumber(), l: await l1.client.getBlockNumber() };
  for (const d of directions) {
    d.sends.stop();
    d.receives.stop();
  }
  say('reading blocks and receipts');
  const address = relayerAddress(net, net.relayerConfig);
  const results = [];
  for (const [i, d] of directions.entries()) {
    const toL1 = d.destination === l1;
    const blocks = { fromBlock: (toL1 ? windowFrom.l : windowFrom.c) + 1n, toBlock: toL1 ? windowTo.l : windowTo.c };
    results.push(await collectDirection({ ...d, ...blocks, submissions: submitted[i]!, relayerAddress: address, before: m0, after: m1 }));
  }
  const delivered = results.reduce((a, r) => a + r.figures.delivered, 0);
  const cpuMs = u1.cpuMs - u0.cpuMs;
  const out = {
    command: `npm run bench:relayer -- ${process.argv.slice(2).join(' ')}`.trim(),
    date: new Date().toISOString(),
    // node_modules is no source (and a checkout may hold a committed link to another's).
    commit: git('rev-parse', '--short', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!node_modules') ? ' (with uncommitted changes)' : ''),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverage1m: { start: round(load0, 2), end: round(load1, 2) } },
    network: { nodes: net.nodes.length, l1Validators: net.l1.validators.length, cChain: net.cChain.blockchainId, l1: net.l1.blockchainId },
    relayer: { command: 'node bin/warpgate.js relay --config <relayerConfig>', address },
    load: { messagesPerDirection: MESSAGES, perSecondPerDirection: RATE, warmupPerDirection: WARMUP, requiredGasLimit: Number(REQUIRED_GAS), payloadBytes: PAYLOAD_BYTES, pollMs: POLL_MS },
    latencyClock: results.every((r) => r.millisecondBlockTimes)
      ? 'block timestamps to the millisecond (timestampMilliseconds) on both chains'
      : 'block timestamps in seconds on at least one chain (latencies are to ±1 s)',
    directions: results.map((r) => ({ name: r.name, route: r.route, ...r.figures, deliveryTransactions: r.deliveryTransactions, duplicateReceives: r.duplicateReceives, executionFailed: r.executionFailed, destinationBlockIntervalMs: r.destinationBlockIntervalMs, relayerMetrics: r.relayerMetrics })),
    relayerProcess: {
      timedWindowMs: round(wallMs, 0),
      cpuMs: round(cpuMs, 0),
      meanCores: round(cpuMs / wallMs, 3),
      cpuMsPerDeliveredMessage: delivered ? round(cpuMs / delivered, 1) : undefined,
      peakRssMb: u1.peakRssMb,
    },
    /** What the relayer logged with a reason during the window: each retried attempt, each validator refusing to sign. */
    relayerReasons: reasonsInLog(relayer.lines, clock0, clock1),
    machineCpuStallMsPerSecond: stall0 !== undefined && stall1 !== undefined ? round((stall1 - stall0) / wallMs, 1) : undefined,
    icmServices: { measured: false, reason: "icm-services' relayer (relayer/main) cannot be built here: the Go module proxy answers 403 for every version of github.com/ava-labs/icm-services" },
  };
  const text = `${JSON.stringify(out, null, 2)}\n`;
  if (args.json) {
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, text);
    say(`wrote ${args.json}`);
  }
  process.stdout.write(text);
} finally {
  await stopAll();
}
