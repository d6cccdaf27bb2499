// The benchmark's validators answer from signatures made before timing starts, so no BLS work runs
// while the benchmark is timing: signer peers (signer-host.ts) and simulated avalanchego nodes
// (node-host.ts) alike. A byzantine validator's answer is its genuine signature over other bytes:
// well-formed, and invalid.
import { SIGNATURE_LENGTH, SIGNATURE_UNCOMPRESSED_LENGTH } from '../src/bls/constants.js';
import type { BlsBackend, SecretKey } from '../src/bls/types.js';
import { bytesToHex, concatBytes } from '../src/warp/hex.js';

/**
 * The form a host's validators answer in: avalanchego nodes (ACP-118) send the 96-byte compressed
 * one; warpgate signers send the 192-byte uncompressed one a service asks for (peers/frames.ts),
 * as a KeyFileBackend does.
 */
export type SignatureForm = 'compressed' | 'uncompressed';

const BYTES: Record<SignatureForm, number> = { compressed: SIGNATURE_LENGTH, uncompressed: SIGNATURE_UNCOMPRESSED_LENGTH };

/** The benchmark's messages, by their bytes (hex), to their index. */
export function messageIndexOf(messagesHex: readonly string[]): Map<string, number> {
  return new Map(messagesHex.map((h, i) => [h.toLowerCase(), i]));
}

/** A validator's signatures over every benchmark message, one after the other in one buffer. */
export interface Precomputed {
  form: SignatureForm;
  bytes: Uint8Array;
}

/**
 * Signature i at [n·i, n·(i+1)), n the form's length: one buffer per validator, not one object per
 * signature, so that a long run (2,000 validators × hundreds of messages) does not stall its
 * process in GC.
 */
export function precomputeSignatures(bls: BlsBackend, secretKey: SecretKey, messages: readonly Uint8Array[], byzantine: boolean, form: SignatureForm): Precomputed {
  const n = BYTES[form];
  const bytes = new Uint8Array(messages.length * n);
  messages.forEach((m, i) => {
    const sig = bls.sign(secretKey, byzantine ? concatBytes(m, Uint8Array.of(0)) : m);
    bytes.set(form === 'compressed' ? sig.bytes : bls.signatureUncompressed(sig), i * n);
  });
  return { form, bytes };
}

/** The precomputed signature over `messageBytes`, or undefined for a message not in the benchmark. */
export function precomputedSignature(index: ReadonlyMap<string, number>, signatures: Precomputed, messageBytes: Uint8Array): { i: number; signature: Uint8Array } | undefined {
  const i = index.get(bytesToHex(messageBytes));
  const n = BYTES[signatures.form];
  return i === undefined ? undefined : { i, signature: signatures.bytes.subarray(i * n, (i + 1) * n) };
}
