// The benchmark's world, built from its options before anything starts: validator keys and
// weights, which validators are offline or byzantine, the messages to sign, the injected delay
// of every (validator, message) and, from those delays, the ideal latency of every message (the
// moment the honest answers that complete quorum + buffer have all arrived).
import { loadBackend } from '../src/bls/index.js';
import { bytesToHex } from '../src/warp/hex.js';
import { encodeAddressedCall } from '../src/warp/payload.js';
import { newUnsignedMessage } from '../src/warp/unsigned-message.js';
import { requiredWeight } from '../src/validators/quorum.js';
import { derive, deriveBlsSecretKey, deriveNodeId } from '../src/devnet/genesis/keys.js';
import { deriveStakingKeyPair, type StakingKeyPair } from '../src/devnet/genesis/staking.js';
import { loadStakingIdentity } from '../src/p2p/index.js';
import { nodeIdToString } from '../src/warp/cb58.js';
import type { BenchOptions, WeightShape } from './args.js';
import { choose, lognormalDelay, uniform } from './random.js';

/** The network ID of the benchmark's messages (a local one; the service is told to accept it). */
export const BENCH_NETWORK_ID = 12345;
/** Bytes of each message's AddressedCall payload (about an ICM message). */
export const PAYLOAD_BYTES = 256;

export type Role = 'honest' | 'byzantine' | 'offline';

export interface BenchValidator {
  index: number;
  nodeId: string;
  secretKeyHex: string;
  /** 48-byte compressed key, hex (how the service indexes peers). */
  publicKeyHex: string;
  weight: bigint;
  role: Role;
  /** --transport p2p: its staking certificate and key; the NodeID is the certificate's. */
  staking?: StakingKeyPair;
}

export interface Scenario {
  subnetId: Uint8Array;
  blockchainId: Uint8Array;
  validators: BenchValidator[];
  totalWeight: bigint;
  /** Weight that completes quorum + buffer, as the aggregator computes it. */
  targetWeight: bigint;
  /** Unsigned messages (hex): `warmup` untimed ones first, then one per timed run. */
  messagesHex: string[];
  warmup: number;
  /** delaysMs[validator][message]: how long that validator waits before answering that message. */
  delaysMs: number[][];
  /** Per message: when the honest answers, in delay order, first reach the target weight. */
  idealMs: number[];
  offlineWeight: bigint;
  byzantineWeight: bigint;
}

export class BenchScenarioError extends Error {
  override readonly name = 'BenchScenarioError';
}

const NANO_AVAX = 1_000_000_000n;

/** A number in [0, 1) as a fraction of `range`, exactly in bigint. */
function scaled(u: number, range: bigint): bigint {
  return (BigInt(Math.floor(u * 1_000_000)) * range) / 1_000_000n;
}

/**
 * uniform: every validator 2,000 AVAX. skewed: the devnet's shape: a tenth of the validators are
 * heavy (9.1-15.1 M AVAX), the rest a long tail spread 15-fold (0.2-3 M AVAX), so the heavy
 * tenth holds about half the stake. Scaled down beyond 2,000 validators so the total stays far
 * below 2^64.
 */
export function weightsFor(n: number, shape: WeightShape, seed: string): bigint[] {
  if (shape === 'uniform') return Array.from({ length: n }, () => 2_000n * NANO_AVAX);
  const heavy = new Set(choose(n, Math.max(1, Math.round(n / 10)), seed, 'heavy'));
  const scale = BigInt(Math.max(1, Math.ceil(n / 2000)));
  return Array.from({ length: n }, (_, i) => {
    const u = uniform(seed, 'weight', i);
    const w = heavy.has(i) ? 9_100_000_000_000_000n + scaled(u, 6_000_000_000_000_000n) : 200_000_000_000_000n + scaled(u, 2_800_000_000_000_000n);
    return w / scale;
  });
}

/** The first arrival time at which the cumulative weight of `answers` reaches `target`. */
export function idealLatency(answers: { delayMs: number; weight: bigint }[], target: bigint): number {
  let sum = 0n;
  for (const a of [...answers].sort((x, y) => x.delayMs - y.delayMs)) {
    sum += a.weight;
    if (sum >= target) return a.delayMs;
  }
  throw new BenchScenarioError('the honest online validators cannot reach the target weight');
}

function messageHex(seed: string, blockchainId: Uint8Array, i: number): string {
  const payload = new Uint8Array(PAYLOAD_BYTES);
  payload.set(new TextEncoder().encode(`warpgate bench ${seed} message ${i}`).subarray(0, PAYLOAD_BYTES));
  const sourceAddress = derive(seed, 'bench-sender').subarray(0, 20);
  return bytesToHex(newUnsignedMessage(BENCH_NETWORK_ID, blockchainId, encodeAddressedCall(sourceAddress, payload)).bytes);
}

export function buildScenario(o: BenchOptions): Scenario {
  const { seed, validators: n } = o;
  const bls = loadBackend('blst');
  const weights = weightsFor(n, o.weights, seed);
  const offlineCount = Math.round((n * o.offlinePercent) / 100);
  const byzantineCount = Math.round((n * o.byzantinePercent) / 100);
  const picked = choose(n, offlineCount + byzantineCount, seed, 'faulty');
  // The seeded shuffle decides who is faulty; the first part of the pick is offline.
  const shuffledPick = [...picked].sort((a, b) => uniform(seed, 'role', a) - uniform(seed, 'role', b));
  const offline = new Set(shuffledPick.slice(0, offlineCount));
  const byzantine = new Set(shuffledPick.slice(offlineCount));

  const validators: BenchValidator[] = weights.map((weight, index) => {
    const secretKey = deriveBlsSecretKey(seed, 'bench-validator', index);
    // An avalanchego node's NodeID is its certificate's hash; a signer peer's is any 20 bytes.
    const staking = o.transport === 'p2p' ? deriveStakingKeyPair(seed, 'bench-validator', index) : undefined;
    return {
      index,
      nodeId: staking ? loadStakingIdentity(staking.certPem, staking.keyPem).nodeId : nodeIdToString(deriveNodeId(seed, 'bench-validator', index, 'node')),
      ...(staking ? { staking } : {}),
      secretKeyHex: bytesToHex(secretKey),
      publicKeyHex: bytesToHex(bls.publicKeyOf(bls.secretKeyFromBytes(secretKey)).bytes),
      weight,
      role: offline.has(index) ? 'offline' : byzantine.has(index) ? 'byzantine' : 'honest',
    };
  });
  const totalWeight = weights.reduce((a, b) => a + b, 0n);
  const target = requiredWeight(totalWeight, o.quorumPercentage + o.quorumPercentageBuffer);
  const targetWeight = target > 0n ? target : 1n;
  const weightOf = (role: Role): bigint => validators.filter((v) => v.role === role).reduce((a, v) => a + v.weight, 0n);
  const honestWeight = weightOf('honest');
  if (honestWeight < targetWeight) {
    const pct = Number((honestWeight * 10_000n) / totalWeight) / 100;
    throw new BenchScenarioError(
      `quorum ${o.quorumPercentage}% + buffer ${o.quorumPercentageBuffer}% is out of reach: the honest online validators hold ${pct}% of the weight`,
    );
  }

  const subnetId = derive(seed, 'bench-subnet');
  const blockchainId = derive(seed, 'bench-chain');
  const count = o.warmup + o.runs;
  const messagesHex = Array.from({ length: count }, (_, i) => messageHex(seed, blockchainId, i));
  const delaysMs = validators.map((v) =>
    v.role === 'offline' ? [] : messagesHex.map((_, m) => Math.round(lognormalDelay(o.latency, seed, 'delay', v.index, m) * 1000) / 1000),
  );
  const honest = validators.filter((v) => v.role === 'honest');
  const idealMs = messagesHex.map((_, m) => idealLatency(honest.map((v) => ({ delayMs: delaysMs[v.index]![m]!, weight: v.weight })), targetWeight));

  return {
    subnetId,
    blockchainId,
    validators,
    totalWeight,
    targetWeight,
    messagesHex,
    warmup: o.warmup,
    delaysMs,
    idealMs,
    offlineWeight: weightOf('offline'),
    byzantineWeight: weightOf('byzantine'),
  };
}
