// Latency of one aggregation on a whole devnet (simulated P-Chain node, signer peers in child
// processes, the service over HTTP), as a relayer sees it:
//   node --import tsx bench/devnet-latency.ts [--validators N] [--runs R] [--quorum Q] [--signer-processes P] [--height H] [--json FILE]
// Every run signs a fresh message (no signature-cache hits), one after the other. By default at
// pChainHeight 0: the current validator set, which the service re-reads from the node every
// validatorSets.currentTtlMs (2 s); --height H signs at a fixed height, whose set stays cached. The first run
// is reported separately: it pays for reading the validator set and decompressing its keys in
// each worker. Startup is timed too, with the cost of the handshake proofs that dominates it on
// big devnets (each signer proves its key with a pure-JS pairing in the BLS worker pool; each
// signer host process signs its signers' challenges one after the other on its main thread).
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { nobleBackend } from '../src/bls/index.js';
import { parseArgs, intOption } from '../src/cli/args.js';
import { startDevnet } from '../src/devnet/devnet.js';
import { authMessage, PEER_AUTH_DST } from '../src/peers/auth.js';

const { options } = parseArgs(
  process.argv.slice(2),
  { validators: { type: 'string' }, runs: { type: 'string' }, quorum: { type: 'string' }, 'signer-processes': { type: 'string' }, height: { type: 'string' }, json: { type: 'string' } },
  'devnet-latency',
);
const validators = intOption(options.validators, 'validators', 2, 10_000, 100);
const runs = intOption(options.runs, 'runs', 1, 10_000, 20);
const quorum = intOption(options.quorum, 'quorum', 0, 100, 67);
// Devnet default: 2. Many signers per process block its event loop while it proves their keys.
const signerProcesses = intOption(options['signer-processes'], 'signer-processes', 1, 64, 2);
const pChainHeight = intOption(options.height, 'height', 0, Number.MAX_SAFE_INTEGER, 0);
const jsonFile = options.json;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i]! * 10) / 10;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);

log(`devnet-latency: ${validators} validators, ${runs} runs at quorum ${quorum}, pChainHeight ${pChainHeight}; ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()[0]!.toFixed(2)}`);
const startedAt = performance.now();
const devnet = await startDevnet({
  validators,
  signerProcesses,
  port: 0,
  logger: pino({ level: 'warn' }, pino.destination(2)),
  // The readiness wait covers the handshakes of every signer.
  readyTimeoutMs: 30 * 60_000,
});
const startupMs = performance.now() - startedAt;
log(`devnet up in ${(startupMs / 1000).toFixed(1)} s (${devnet.info.signers} signer peers)`);

/**
 * Waits until every signer has stayed connected for `quietMs`: on a big devnet some connections
 * drop and redo their handshake after startup, and their proof checks would share the BLS
 * worker pool with the measured aggregations.
 */
async function settle(quietMs: number, limitMs: number): Promise<{ ms: number; reconnects: number }> {
  const started = performance.now();
  let reconnects = 0;
  const onConnected = (): void => void reconnects++;
  devnet.service.peers.on('connected', onConnected);
  try {
    let stableSince = performance.now();
    while (performance.now() - stableSince < quietMs && performance.now() - started < limitMs) {
      if (devnet.service.peers.connectedKeys().length < devnet.info.signers) stableSince = performance.now();
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    devnet.service.peers.off('connected', onConnected);
  }
  return { ms: performance.now() - started, reconnects };
}
const settled = await settle(Math.min(10_000, 1_000 + validators * 10), 10 * 60_000);
log(`all signers stayed connected for a while after ${(settled.ms / 1000).toFixed(1)} s (${settled.reconnects} reconnects meanwhile)`);

try {
  // What one handshake proof costs in the service's worker pool (the pure-JS pairing).
  const noble = nobleBackend();
  const sk = noble.generateSecretKey();
  const challenge = new Uint8Array(32).fill(7);
  const proof = noble.signWithDst(sk, authMessage(challenge), PEER_AUTH_DST).bytes;
  const publicKey = noble.publicKeyOf(sk).bytes;
  const proofMs: number[] = [];
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    await devnet.service.pool.verifyPossession({ publicKey, message: authMessage(challenge), proof, dst: PEER_AUTH_DST });
    proofMs.push(performance.now() - t);
  }
  const perProofMs = percentile(proofMs, 50);
  const threads = devnet.service.pool.threads;

  const url = `${devnet.info.url}/v1/signatureAggregator/fuji/aggregateSignatures`;
  const latencies: number[] = [];
  let firstMs = 0;
  let reconnectsDuringRuns = 0;
  devnet.service.peers.on('connected', () => void reconnectsDuringRuns++);
  for (let r = 0; r <= runs; r++) {
    const body = JSON.stringify({ message: devnet.exampleMessageHex(`devnet-latency ${Date.now()} ${r}`), quorumPercentage: quorum, pChainHeight });
    const t = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    const ms = performance.now() - t;
    if (res.status !== 201) throw new Error(`run ${r}: HTTP ${res.status}: ${text.slice(0, 300)}`);
    if (r === 0) firstMs = ms;
    else latencies.push(ms);
  }

  const result = {
    validators,
    signers: devnet.info.signers,
    signerProcesses,
    quorumPercentage: quorum,
    pChainHeight,
    runs,
    cpus: availableParallelism(),
    startupMs: Math.round(startupMs),
    settle: { ms: Math.round(settled.ms), reconnects: settled.reconnects },
    handshake: { perProofMs, workerThreads: threads, estimatedMs: Math.round((devnet.info.signers * perProofMs) / threads) },
    firstRunMs: Math.round(firstMs * 10) / 10,
    reconnectsDuringRuns,
    latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), min: percentile(latencies, 0), max: percentile(latencies, 100) },
  };
  log(
    `median ${result.latencyMs.p50} ms (p90 ${result.latencyMs.p90}, min ${result.latencyMs.min}, max ${result.latencyMs.max}) over ${runs} runs; ` +
      `first run ${result.firstRunMs} ms; startup ${(startupMs / 1000).toFixed(1)} s, of which handshake proofs ≈ ` +
      `${devnet.info.signers} × ${perProofMs} ms / ${threads} threads ≈ ${(result.handshake.estimatedMs / 1000).toFixed(1)} s`,
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await devnet.close();
}
