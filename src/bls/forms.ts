// A signature's two encodings (ZCash serialization): 96 bytes compressed, the only one Avalanche's
// formats carry, and 192 bytes uncompressed, which our own signer protocol may carry because it
// decodes without a square root. The first byte's flags tell them apart; the length must agree.
import { SIGNATURE_LENGTH, SIGNATURE_UNCOMPRESSED_LENGTH } from './constants.js';
import type { BlsBackend, Signature } from './types.js';

/** Set on the compressed form, clear on the uncompressed one. */
export const COMPRESSION_FLAG = 0x80;
const INFINITY_FLAG = 0x40;

/** Infinity, in either form: a valid encoding, but never one signer's valid signature (sk would be 0). */
export function isInfinityEncoding(bytes: Uint8Array): boolean {
  return bytes.length > 0 && (bytes[0]! & INFINITY_FLAG) !== 0;
}

/** The 192-byte form, told by its length (isWellFormedSignature says whether its flags agree). */
export function isUncompressedForm(bytes: Uint8Array): boolean {
  return bytes.length === SIGNATURE_UNCOMPRESSED_LENGTH;
}

/** The ZCash rule: the compression flag is set on the 96-byte form and clear on the 192-byte one. */
export function isWellFormedSignature(bytes: Uint8Array): boolean {
  const compressed = ((bytes[0] ?? 0) & COMPRESSION_FLAG) !== 0;
  return bytes.length === SIGNATURE_LENGTH ? compressed : bytes.length === SIGNATURE_UNCOMPRESSED_LENGTH && !compressed;
}

/**
 * Either form, with signatureFromBytes's checks (throws its BlsError). Only for signatures from
 * our own signers: what comes from Avalanche's formats goes to signatureFromBytes alone.
 */
export function signatureFromEitherForm(bls: BlsBackend, bytes: Uint8Array): Signature {
  return isUncompressedForm(bytes) ? bls.signatureFromUncompressed(bytes) : bls.signatureFromBytes(bytes);
}
