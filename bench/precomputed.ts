// The benchmark's validators answer from signatures made before timing starts, so no BLS work runs
// while the benchmark is timing: signer peers (signer-host.ts) and simulated avalanchego nodes
// (node-host.ts) alike. A byzantine validator's answer is its genuine signature over other bytes:
// well-formed, and invalid.
import type { BlsBackend, SecretKey } from '../src/bls/types.js';
import { bytesToHex, concatBytes } from '../src/warp/hex.js';

const SIGNATURE_BYTES = 96;

/** The benchmark's messages, by their bytes (hex), to their index. */
export function messageIndexOf(messagesHex: readonly string[]): Map<string, number> {
  return new Map(messagesHex.map((h, i) => [h.toLowerCase(), i]));
}

/**
 * Signature i at [96·i, 96·(i+1)): one buffer per validator, not one object per signature, so
 * that a long run (2,000 validators × hundreds of messages) does not stall its process in GC.
 */
export function precomputeSignatures(bls: BlsBackend, secretKey: SecretKey, messages: readonly Uint8Array[], byzantine: boolean): Uint8Array {
  const signatures = new Uint8Array(messages.length * SIGNATURE_BYTES);
  messages.forEach((m, i) => signatures.set(bls.sign(secretKey, byzantine ? concatBytes(m, Uint8Array.of(0)) : m).bytes, i * SIGNATURE_BYTES));
  return signatures;
}

/** The precomputed signature over `messageBytes`, or undefined for a message not in the benchmark. */
export function precomputedSignature(index: ReadonlyMap<string, number>, signatures: Uint8Array, messageBytes: Uint8Array): { i: number; signature: Uint8Array } | undefined {
  const i = index.get(bytesToHex(messageBytes));
  return i === undefined ? undefined : { i, signature: signatures.subarray(i * SIGNATURE_BYTES, (i + 1) * SIGNATURE_BYTES) };
}
