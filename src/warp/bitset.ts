// BitSetSignature's signers field (utils/set/bits.go): the set of canonical validator indices as
// the minimal big-endian bytes of the integer with bit i set for index i. Index 0 is the lowest
// bit of the last byte, there is never a leading zero byte, and the empty set is zero bytes.
// Both directions run on every aggregation, so they work byte-wise rather than through bigint.
import { WarpFormatError } from './errors.js';

const WHAT = 'BitSetSignature.signers';

/**
 * The largest index accepted when encoding: far above any real validator set, low enough that a
 * stray huge number cannot allocate megabytes.
 */
export const MAX_SIGNER_INDEX = (1 << 20) - 1;

export function encodeSigners(indices: Iterable<number>): Uint8Array {
  const list = Array.isArray(indices) ? (indices as number[]) : [...indices];
  let max = -1;
  for (const i of list) {
    if (!Number.isInteger(i) || i < 0 || i > MAX_SIGNER_INDEX) {
      throw new WarpFormatError(WHAT, `index must be an integer from 0 to ${MAX_SIGNER_INDEX}, got ${String(i)}`);
    }
    if (i > max) max = i;
  }
  if (max < 0) return new Uint8Array(0);
  const out = new Uint8Array((max >> 3) + 1);
  const last = out.length - 1;
  for (const i of list) out[last - (i >> 3)]! |= 1 << (i & 7);
  return out;
}

/**
 * The signer indices in ascending order. Rejects a leading zero byte (avalanchego re-encodes the
 * set and compares lengths, so a padded bitset never verifies) and, when `setSize` is given, any
 * index at or past it.
 */
export function decodeSigners(bytes: Uint8Array, setSize?: number): number[] {
  if (bytes.length === 0) return [];
  const first = bytes[0]!;
  if (first === 0) throw new WarpFormatError(WHAT, 'is not minimally encoded (leading zero byte)', 0);
  if (setSize !== undefined) {
    const highest = (bytes.length - 1) * 8 + (31 - Math.clz32(first));
    if (highest >= setSize) {
      throw new WarpFormatError(WHAT, `names validator index ${highest} but the validator set has ${setSize}`, 0);
    }
  }
  const out: number[] = [];
  for (let pos = bytes.length - 1, base = 0; pos >= 0; pos--, base += 8) {
    let b = bytes[pos]!;
    while (b !== 0) {
      const low = b & -b;
      out.push(base + 31 - Math.clz32(low));
      b ^= low;
    }
  }
  return out;
}
