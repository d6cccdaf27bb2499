// Avalanche's BLS parameters (protocol.md section 3), shared by both backends.

/** Warp signatures: the proof-of-possession ciphersuite's signature DST. */
export const SIGNATURE_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';
/** Proofs of possession sign the 48-byte compressed public key under this DST. */
export const POP_DST = 'BLS_POP_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_';

export const SECRET_KEY_LENGTH = 32;
export const PUBLIC_KEY_LENGTH = 48;
export const SIGNATURE_LENGTH = 96;
/**
 * The ZCash uncompressed form of a signature (x ‖ y, compression flag clear): what our own signer
 * protocol may carry instead of the 96-byte form, to spare the aggregator the square roots of
 * decompression. Never part of Avalanche's own formats, which take only the compressed form.
 */
export const SIGNATURE_UNCOMPRESSED_LENGTH = 192;

/** r, the order of G1 and G2; a secret key is a scalar in [1, r). */
export const CURVE_ORDER = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
