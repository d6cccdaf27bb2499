// A worker thread's parsed public keys, found by the 48 bytes a batch carries without allocating
// anything on a hit. Every fold looks up one key per signature (hundreds per aggregation at 1,000
// validators); keying a Map by each key's hex made a view, a Buffer and a 96-character string per
// lookup (~0.7 µs measured alone) and garbage for the worker's GC. Reading a number out of the
// bytes and comparing them with the cached key's own made a fold of 560 signatures ~0.13 ms
// cheaper (bench/fold-batches.ts; the A/B is in commit 50c32f9).
import { PUBLIC_KEY_LENGTH } from '../bls/constants.js';

/**
 * A 53-bit number from a compressed key's last seven bytes (pseudo-random x-coordinate bits): a
 * safe integer, so a Map key without a string. Making a key that shares a given key's number
 * takes ~2^53 tries, and a pair that shares one costs only a parse each time they take turns.
 */
function hashAt(buf: Uint8Array, offset: number): number {
  const end = offset + PUBLIC_KEY_LENGTH;
  const high = ((buf[end - 4]! << 24) | (buf[end - 3]! << 16) | (buf[end - 2]! << 8) | buf[end - 1]!) >>> 0;
  const low = ((buf[end - 7]! << 13) | (buf[end - 6]! << 5) | (buf[end - 5]! >>> 3)) & 0x1fffff;
  return high * 0x200000 + low;
}

function sameBytes(key: Uint8Array, buf: Uint8Array, offset: number): boolean {
  for (let i = PUBLIC_KEY_LENGTH - 1; i >= 0; i--) if (key[i] !== buf[offset + i]) return false;
  return true;
}

export class ParsedKeys<K extends { readonly bytes: Uint8Array }> {
  private readonly byHash = new Map<number, K>();

  constructor(
    /** Parses (and validates) 48 bytes; throws for bytes that are no key, and then nothing is remembered. */
    private readonly parse: (bytes: Uint8Array) => K,
    /** Keys kept at most; past it the oldest goes. */
    private readonly maxKeys: number,
  ) {
    if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError(`a key cache keeps at least one key, got ${maxKeys}`);
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The parsed key of these bytes: a key's 48, or whatever else the parser refuses. */
  of(bytes: Uint8Array): K {
    return bytes.length === PUBLIC_KEY_LENGTH ? this.at(bytes, 0) : this.parse(bytes);
  }

  /**
   * The parsed key whose 48 bytes start at `offset` in `buf`. A hit is a key whose own bytes equal
   * them, never a hash match alone: two keys sharing a hash take turns in its slot (each parsed
   * again when the other displaced it), and neither is ever served for the other.
   */
  at(buf: Uint8Array, offset: number): K {
    if (offset < 0 || offset + PUBLIC_KEY_LENGTH > buf.length) return this.parse(buf.subarray(offset));
    const hash = hashAt(buf, offset);
    const hit = this.byHash.get(hash);
    if (hit !== undefined && sameBytes(hit.bytes, buf, offset)) return hit;
    const parsed = this.parse(buf.subarray(offset, offset + PUBLIC_KEY_LENGTH));
    if (hit === undefined && this.byHash.size >= this.maxKeys) this.byHash.delete(this.byHash.keys().next().value as number);
    this.byHash.set(hash, parsed);
    return parsed;
  }
}
