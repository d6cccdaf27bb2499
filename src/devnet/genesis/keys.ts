// Everything random in a devnet comes from sha256 over the seed and a label, so one seed always
// gives the same keys, node IDs, weights and transaction IDs (tests and `--seed` rely on it),
// and different seeds give unrelated networks.
import { sha256 } from '@noble/hashes/sha2.js';
import { CURVE_ORDER } from '../../bls/constants.js';

const DOMAIN = 'warpgate-devnet';
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const encoder = new TextEncoder();

/** 32 bytes determined by the seed and the label (the parts are NUL-separated, so unambiguous). */
export function derive(seed: string, ...label: (string | number)[]): Uint8Array {
  return sha256(encoder.encode([DOMAIN, seed, ...label.map(String)].join('\0')));
}

/** A uint64 determined by the seed and the label. */
export function deriveU64(seed: string, ...label: (string | number)[]): bigint {
  const bytes = derive(seed, ...label);
  return Buffer.from(bytes.buffer, bytes.byteOffset, 8).readBigUInt64BE(0);
}

/**
 * A BLS secret key: sha256(seed, label) reduced modulo the group order, re-hashed with a counter
 * in the (astronomically unlikely) case it reduces to zero, which is not a valid key.
 */
export function deriveBlsSecretKey(seed: string, ...label: (string | number)[]): Uint8Array {
  for (let attempt = 0; ; attempt++) {
    const scalar = BigInt(`0x${Buffer.from(derive(seed, ...label, 'attempt', attempt)).toString('hex')}`) % CURVE_ORDER;
    if (scalar !== 0n) return scalarToBytes(scalar);
  }
}

/** A 32-byte big-endian scalar, as avalanchego's signer.key holds it. */
export function scalarToBytes(scalar: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(scalar.toString(16).padStart(64, '0'), 'hex'));
}

export function bytesToScalar(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

/** A 20-byte node ID (real ones are a hash of the node's TLS certificate; any 20 bytes will do). */
export function deriveNodeId(seed: string, ...label: (string | number)[]): Uint8Array {
  return derive(seed, ...label).slice(0, 20);
}

/** A secp256k1 secret key (a valid one: sha256 output below the curve order, re-hashed if not). */
export function deriveSecp256k1SecretKey(seed: string, ...label: (string | number)[]): Uint8Array {
  for (let attempt = 0; ; attempt++) {
    const bytes = derive(seed, ...label, 'attempt', attempt);
    const scalar = bytesToScalar(bytes);
    if (scalar !== 0n && scalar < SECP256K1_ORDER) return bytes;
  }
}
