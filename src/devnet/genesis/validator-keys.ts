// The second stage of a genesis: the L1's validators as keys and weights. N keyed validators of
// uneven weight (validators 1 and 2 share one BLS key: two node IDs, one canonical validator),
// and INACTIVE_VALIDATORS more that will hold no balance and so count only as the keyless
// entry's weight. Validators that will run as simulated avalanchego nodes get a staking
// certificate, and their NodeID is the certificate's, as a real node's is.
import type { BlsBackend } from '../../bls/types.js';
import { certificateDerFromPem, nodeIdBytesFromCertificate } from '../../p2p/index.js';
import { nodeIdToString } from '../../warp/cb58.js';
import { deriveBlsSecretKey, deriveNodeId, deriveU64 } from './keys.js';
import { deriveStakingKeyPair, type StakingKeyPair } from './staking.js';

/** Inactive L1 validators (balance 0): they only count as the keyless entry's weight. */
export const INACTIVE_VALIDATORS = 2;

export interface KeyedNode {
  nodeIdBytes: Uint8Array;
  nodeId: string;
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  /** Its staking certificate and key, when it runs as a simulated avalanchego node. */
  staking?: StakingKeyPair;
}

export interface ValidatorKeys {
  /** The N active validators, in index order. */
  nodes: KeyedNode[];
  /** Their weights when they joined the L1. */
  initialWeights: bigint[];
  inactive: { node: KeyedNode; weight: bigint }[];
  /** The indices of the two validators that share a BLS key, when N ≥ 3. */
  sharedPair: [number, number] | null;
}

function keyedNode(bls: BlsBackend, nodeIdBytes: Uint8Array, secretKey: Uint8Array, staking?: StakingKeyPair): KeyedNode {
  return {
    nodeIdBytes,
    nodeId: nodeIdToString(nodeIdBytes),
    secretKey,
    publicKey: bls.publicKeyOf(bls.secretKeyFromBytes(secretKey)).bytes,
    ...(staking ? { staking } : {}),
  };
}

/** A validator's NodeID bytes: its certificate's when it has one, else 20 bytes from the seed. */
function nodeIdOf(seed: string, index: number, staking: StakingKeyPair | undefined): Uint8Array {
  return staking ? nodeIdBytesFromCertificate(certificateDerFromPem(staking.certPem)) : deriveNodeId(seed, 'validator', index, 'node');
}

/**
 * Uneven weights: about a tenth of the validators are heavy (above 2^53, so that a client that
 * reads JSON numbers as doubles computes a wrong conversionID), the rest a long tail spread
 * 15-fold. Scaled down for very large sets so the total stays far below 2^64.
 */
function l1Weight(seed: string, index: number, heavyCount: number, scale: bigint): bigint {
  const r = deriveU64(seed, 'validator', index, 'weight');
  const weight = index < heavyCount ? 9_100_000_000_000_000n + (r % 6_000_000_000_000_000n) : 200_000_000_000_000n + (r % 2_800_000_000_000_000n);
  return weight / scale;
}

/** `withStaking(i)`: validator i gets a staking certificate (it runs as a simulated avalanchego node). */
export function validatorKeys(bls: BlsBackend, seed: string, n: number, withStaking: (index: number) => boolean = () => false): ValidatorKeys {
  const sharedPair: [number, number] | null = n >= 3 ? [1, 2] : null;
  const heavyCount = Math.max(1, Math.round(n / 10));
  const scale = BigInt(Math.max(1, Math.ceil(n / 2000)));
  const nodes: KeyedNode[] = [];
  const initialWeights: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const secret = sharedPair && i === sharedPair[1] ? nodes[sharedPair[0]]!.secretKey : deriveBlsSecretKey(seed, 'validator', i, 'bls');
    const staking = withStaking(i) ? deriveStakingKeyPair(seed, 'validator', i) : undefined;
    nodes.push(keyedNode(bls, nodeIdOf(seed, i, staking), secret, staking));
    initialWeights.push(l1Weight(seed, i, heavyCount, scale));
  }
  const inactive: { node: KeyedNode; weight: bigint }[] = [];
  for (let j = 0; j < INACTIVE_VALIDATORS; j++) {
    inactive.push({
      node: keyedNode(bls, deriveNodeId(seed, 'inactive', j, 'node'), deriveBlsSecretKey(seed, 'inactive', j, 'bls')),
      weight: (100_000_000_000_000n + (deriveU64(seed, 'inactive', j, 'weight') % 400_000_000_000_000n)) / scale,
    });
  }
  const allNodeIds = new Set([...nodes, ...inactive.map((x) => x.node)].map((x) => x.nodeId));
  if (allNodeIds.size !== n + INACTIVE_VALIDATORS) throw new Error('devnet node IDs collide; use another seed');
  return { nodes, initialWeights, inactive, sharedPair };
}
