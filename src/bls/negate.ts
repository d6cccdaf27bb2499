// The negation of a compressed point, by its encoding alone. In the compressed serialization both
// backends read (the ZCash BLS12-381 format: flag bits in the top three bits of the first byte,
// 0x80 compressed, 0x40 infinity, 0x20 "y is the lexicographically larger root"), -P has the same
// x as P and the other root as y. y = 0 would need a point of order 2, which the prime-order
// subgroup has none of, so exactly one of y and -y is the larger: flipping 0x20 negates the point.
// Parsing the flipped bytes costs what parsing the point costs, and lets a sum drop a term
// (Σ − s = Σ + (−s)) through the plain-sum operations every backend has.
import { BlsError } from './types.js';

const COMPRESSED = 0x80;
const INFINITY = 0x40;
const LARGER_Y = 0x20;

/**
 * The encoding of -P for the compressed encoding of a point P (a 48-byte public key or a 96-byte
 * signature). The point at infinity and uncompressed encodings have no such flip: BlsError.
 */
export function negatedEncoding(bytes: Uint8Array, what: 'publicKey' | 'signature'): Uint8Array {
  const first = bytes[0];
  if (first === undefined || (first & COMPRESSED) === 0) throw new BlsError(what, 'only a compressed point can be negated by its encoding');
  if ((first & INFINITY) !== 0) throw new BlsError(what, 'the point at infinity is its own negation and is never negated here');
  const negated = new Uint8Array(bytes);
  negated[0] = first ^ LARGER_Y;
  return negated;
}
