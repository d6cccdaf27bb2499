// Checks that both backends apply before touching a curve library, so that both reject the
// same inputs with the same reasons (and blst's native code never sees a short buffer).
import { CURVE_ORDER, SECRET_KEY_LENGTH } from './constants.js';
import { BlsError } from './types.js';

type What = BlsError['what'];

export function expectLength(bytes: Uint8Array, length: number, what: What, index?: number): void {
  if (!(bytes instanceof Uint8Array)) {
    throw new BlsError(what, `expected a Uint8Array, got ${typeof bytes}`, index);
  }
  if (bytes.length !== length) {
    throw new BlsError(what, `expected ${length} bytes, got ${bytes.length}`, index);
  }
}

/**
 * A private copy of input bytes (a handle's `bytes` must not change under it). Not
 * `bytes.slice()`: on a Buffer that returns a view of the same memory.
 */
export function ownCopy(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

/** The secret scalar of a 32-byte big-endian key; rejects 0 and values ≥ the group order. */
export function parseSecretScalar(bytes: Uint8Array): bigint {
  expectLength(bytes, SECRET_KEY_LENGTH, 'secretKey');
  let scalar = 0n;
  for (const byte of bytes) scalar = (scalar << 8n) | BigInt(byte);
  if (scalar === 0n) throw new BlsError('secretKey', 'zero is not a valid secret key');
  if (scalar >= CURVE_ORDER) throw new BlsError('secretKey', 'not below the group order');
  return scalar;
}

/** Reasons shared by both backends, so callers and tests can tell the failure classes apart. */
export const REASON = {
  badEncoding: 'bad encoding',
  notOnCurve: 'not a point on the curve',
  notInSubgroup: 'not in the prime-order subgroup',
  infinity: 'the point at infinity',
} as const;
