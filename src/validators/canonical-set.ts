// The canonical validator set of a subnet at a height, as avalanchego's
// snow/validators.GetCanonicalValidatorSet builds it (protocol.md section 4): the total counts
// every validator's weight, keyless ones included; validators without a BLS key are dropped;
// validators sharing a key are merged; the rest are sorted by their 96-byte UNCOMPRESSED key.
// Bit i of a Warp signers bitset refers to validators[i] of this set, so any deviation here
// makes every signature we produce or check refer to the wrong validators.
import type { BackendName, BlsBackend, PublicKey } from '../bls/types.js';
import { BlsError } from '../bls/types.js';
import { bytesToHex } from '../warp/hex.js';
import { ValidatorSetError } from './errors.js';
import { PublicKeyCache } from './key-cache.js';

export const MAX_UINT64 = (1n << 64n) - 1n;
const PUBLIC_KEY_LENGTH = 48;

/** One validator as the P-Chain reports it. */
export interface ValidatorEntry {
  /** `NodeID-…` */
  nodeId: string;
  weight: bigint;
  /** 48-byte compressed BLS key, or null for a validator without one. */
  publicKey: Uint8Array | null;
}

interface CanonicalValidator {
  /** Parsed and validated once (not infinity, in the subgroup) by the set's backend. */
  publicKey: PublicKey;
  /** Lower-case hex of the 48-byte compressed key, no `0x`. */
  publicKeyHex: string;
  weight: bigint;
  /** Every node ID that registered this key (more than one when keys were merged). */
  nodeIds: string[];
}

export interface CanonicalSet {
  /** In canonical order: index i here is bit i of a signers bitset. */
  validators: CanonicalValidator[];
  /** Sum of all validators' weights, including those without a key. */
  totalWeight: bigint;
  /** Canonical index of a compressed key given as hex (`0x` optional, any case). */
  indexOf(publicKeyHex: string): number | undefined;
  /**
   * The backend whose parsed keys the set holds (canonicalSet always sets it). Key handles are
   * backend-specific: code that verifies with another backend must re-parse from the bytes.
   */
  readonly backend?: BackendName;
}

/**
 * Builds the canonical set. Throws ValidatorSetError naming the node for a weight outside
 * uint64, a key that is not 48 bytes or not a valid G1 point, and when a sum overflows uint64.
 * `keyCache` (made for the same backend) skips re-validating keys seen before.
 */
export function canonicalSet(
  entries: readonly ValidatorEntry[],
  bls: BlsBackend,
  keyCache?: PublicKeyCache,
): CanonicalSet {
  if (keyCache && keyCache.bls !== bls) {
    throw new Error('canonicalSet: the key cache belongs to a different BLS backend');
  }
  const cache = keyCache ?? new PublicKeyCache(bls, Math.max(1, entries.length));

  let totalWeight = 0n;
  const byKey = new Map<string, { validator: CanonicalValidator; uncompressed: Uint8Array }>();
  for (const entry of entries) {
    const { nodeId, weight, publicKey } = entry;
    if (typeof weight !== 'bigint' || weight < 0n || weight > MAX_UINT64) {
      throw new ValidatorSetError(`weight ${String(weight)} is not a uint64`, nodeId);
    }
    totalWeight += weight;
    if (totalWeight > MAX_UINT64) {
      throw new ValidatorSetError(`total weight overflows uint64 when adding ${weight}`, nodeId);
    }
    if (publicKey === null) continue;
    if (publicKey.length !== PUBLIC_KEY_LENGTH) {
      throw new ValidatorSetError(
        `BLS public key must be ${PUBLIC_KEY_LENGTH} bytes, got ${publicKey.length}`,
        nodeId,
      );
    }
    const publicKeyHex = bytesToHex(publicKey);
    const merged = byKey.get(publicKeyHex);
    if (merged) {
      // Cannot overflow: it is bounded by totalWeight, checked above. Kept explicit anyway
      // because a silent wrap here would mis-weigh signatures.
      merged.validator.weight += weight;
      if (merged.validator.weight > MAX_UINT64) {
        throw new ValidatorSetError('merged weight overflows uint64', nodeId);
      }
      merged.validator.nodeIds.push(nodeId);
      continue;
    }
    let parsed: { pk: PublicKey; uncompressed: Uint8Array };
    try {
      parsed = cache.parse(publicKeyHex, publicKey);
    } catch (err) {
      const reason = err instanceof BlsError ? err.reason : err instanceof Error ? err.message : String(err);
      throw new ValidatorSetError(`invalid BLS public key 0x${publicKeyHex}: ${reason}`, nodeId);
    }
    byKey.set(publicKeyHex, {
      validator: { publicKey: parsed.pk, publicKeyHex, weight, nodeIds: [nodeId] },
      uncompressed: parsed.uncompressed,
    });
  }

  const sorted = [...byKey.values()].sort((a, b) => Buffer.compare(a.uncompressed, b.uncompressed));
  const validators = sorted.map((s) => s.validator);
  // Frozen: one set is shared by every aggregation that the cache hands it to.
  for (const v of validators) {
    Object.freeze(v.nodeIds);
    Object.freeze(v);
  }
  Object.freeze(validators);
  const indexByHex = new Map(validators.map((v, i) => [v.publicKeyHex, i] as const));
  return {
    validators,
    totalWeight,
    backend: bls.name,
    indexOf(hex: string): number | undefined {
      const body = hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex;
      return indexByHex.get(body.toLowerCase());
    },
  };
}

/** True for a CanonicalSet rather than a raw list of entries. */
export function isCanonicalSet(value: readonly ValidatorEntry[] | CanonicalSet): value is CanonicalSet {
  return !Array.isArray(value);
}
