// Proof of key possession for the peer handshake (docs/peer-protocol.md, "Handshake"). The signer
// signs AUTH_CONTEXT ‖ challenge under a DST of our own, so the proof can never be valid as a
// Warp signature (…_SIG_…_POP_) or a proof of possession (…_POP_…_POP_), and no Warp signature
// can stand in for it.
import { randomBytes } from 'node:crypto';
import { nobleBackend } from '../bls/index.js';
import type { BlsBackend, SecretKey } from '../bls/types.js';
import { concatBytes } from '../warp/hex.js';
import { CHALLENGE_BYTES } from './frames.js';

export const PEER_AUTH_DST = 'WARPGATE_PEER_AUTH_V1_BLS12381G2_XMD:SHA-256_SSWU_RO_';
/** Binds a proof to this protocol and version. */
export const AUTH_CONTEXT = new TextEncoder().encode('warpgate-peer-auth/v1');

/** Checks a handshake proof; the server runs it in a worker pool (pure-JS BLS takes ~30-40 ms). */
export type VerifyPossession = (publicKey: Uint8Array, message: Uint8Array, proof: Uint8Array) => Promise<boolean>;

export function newChallenge(): Uint8Array {
  return Uint8Array.from(randomBytes(CHALLENGE_BYTES));
}

/** The bytes a signer signs to answer `challenge`. */
export function authMessage(challenge: Uint8Array): Uint8Array {
  return concatBytes(AUTH_CONTEXT, challenge);
}

/** The signer's answer to a challenge: its 96-byte proof. */
export function proveKey(bls: BlsBackend, sk: SecretKey, challenge: Uint8Array): Uint8Array {
  return bls.signWithDst(sk, authMessage(challenge), PEER_AUTH_DST).bytes;
}

/**
 * Synchronous check with a given backend: false for a bad key (infinity, outside the subgroup),
 * a bad signature encoding or a proof that does not verify. For worker tasks.
 */
function checkPossession(bls: BlsBackend, publicKey: Uint8Array, message: Uint8Array, proof: Uint8Array): boolean {
  try {
    return bls.verifyWithDst(bls.publicKeyFromBytes(publicKey), message, bls.signatureFromBytes(proof), PEER_AUTH_DST);
  } catch {
    return false;
  }
}

/**
 * The default: the pure-JS noble backend on the calling thread (blst hard-codes the Warp DST).
 * Fine for tests and a handful of peers; the server injects a worker-pool version.
 */
export const defaultVerifyPossession: VerifyPossession = async (publicKey, message, proof) =>
  checkPossession(nobleBackend(), publicKey, message, proof);
