// The worker's key cache: a lookup finds a key by its bytes at an offset, parses each key once,
// never serves one key for another (not even two that share the cache's hash), refuses what the
// parser refuses without remembering it, and keeps at most its bound.
import { describe, expect, it } from 'vitest';
import { ParsedKeys } from '../../src/bls-pool/parsed-keys.js';
import type { PublicKey } from '../../src/bls/types.js';
import { blst } from '../bls/helpers.js';
import { secretKey } from './helpers.js';

const keyBytes = (label: string): Uint8Array => blst.publicKeyOf(secretKey(label)).bytes;

/** A cache over blst that counts its parses. */
function counting(maxKeys: number): { keys: ParsedKeys<PublicKey>; parses: () => number } {
  let parses = 0;
  const keys = new ParsedKeys<PublicKey>((bytes) => {
    parses++;
    return blst.publicKeyFromBytes(bytes);
  }, maxKeys);
  return { keys, parses: () => parses };
}

/** Keys end to end, as a packed batch carries them. */
const packed = (...list: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(list.length * 48);
  list.forEach((k, i) => out.set(k, i * 48));
  return out;
};

describe('ParsedKeys', () => {
  it('finds each key by its bytes at an offset in a packed buffer, and parses it once', () => {
    const [a, b] = [keyBytes('a'), keyBytes('b')];
    const { keys, parses } = counting(10);
    const buf = packed(a, b, a);
    expect(keys.at(buf, 0).bytes).toEqual(a);
    expect(keys.at(buf, 48).bytes).toEqual(b);
    expect(keys.at(buf, 96).bytes).toEqual(a);
    expect(keys.of(b).bytes).toEqual(b);
    expect(parses()).toBe(2);
    expect(keys.size).toBe(2);
  });

  it('never serves a key for other bytes that share its hash (the last seven bytes)', () => {
    const a = keyBytes('a');
    const { keys, parses } = counting(10);
    expect(keys.of(a).bytes).toEqual(a);
    // Same hash, other bytes: the cached key must not come back. Refused, since it is no key.
    const lookalike = a.slice();
    lookalike[5] = lookalike[5]! ^ 0x01;
    expect(() => keys.of(lookalike)).toThrow();
    expect(keys.of(a).bytes).toEqual(a);
    expect(parses()).toBe(2);
  });

  it('gives two keys sharing a hash turns in its slot, each still itself', () => {
    // A parser that takes any bytes, so that two "keys" can share the hash.
    let parses = 0;
    const keys = new ParsedKeys<{ bytes: Uint8Array }>((bytes) => {
      parses++;
      return { bytes: bytes.slice() };
    }, 10);
    const x = new Uint8Array(48).fill(1);
    const y = x.slice();
    y[0] = 2;
    expect(keys.of(x).bytes).toEqual(x);
    expect(keys.of(y).bytes).toEqual(y);
    expect(keys.of(x).bytes).toEqual(x);
    expect(keys.size).toBe(1);
    expect(parses).toBe(3);
  });

  it('refuses what the parser refuses, remembering nothing, and reads no key past the buffer', () => {
    const { keys, parses } = counting(10);
    const notAKey = new Uint8Array(48).fill(0xff);
    expect(() => keys.of(notAKey)).toThrow();
    expect(() => keys.of(new Uint8Array(47))).toThrow();
    expect(() => keys.of(packed(keyBytes('a'), keyBytes('b')))).toThrow();
    expect(() => keys.at(packed(keyBytes('a')), 24)).toThrow();
    expect(keys.size).toBe(0);
    expect(parses()).toBe(4);
  });

  it('keeps at most its bound, the oldest going first', () => {
    const list = ['a', 'b', 'c'].map(keyBytes);
    const { keys, parses } = counting(2);
    for (const k of list) keys.of(k);
    expect(keys.size).toBe(2);
    keys.of(list[2]!);
    keys.of(list[1]!);
    expect(parses()).toBe(3);
    keys.of(list[0]!);
    expect(parses()).toBe(4);
    expect(keys.size).toBe(2);
  });

  it('refuses a bound below one', () => {
    expect(() => new ParsedKeys(blst.publicKeyFromBytes, 0)).toThrow(RangeError);
  });
});
