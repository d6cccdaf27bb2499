import { describe, expect, it } from 'vitest';
import { bytesToHex, decodeSigners, encodeSigners, hexToBytes, MAX_SIGNER_INDEX, WarpFormatError } from '../../src/warp/index.js';

describe('signers bitset', () => {
  it('protocol examples: {1,2} = 06, {8} = 0100, {0,9} = 0201, {} = empty', () => {
    expect(bytesToHex(encodeSigners([2, 1]))).toBe('06');
    expect(bytesToHex(encodeSigners(new Set([8])))).toBe('0100');
    expect(bytesToHex(encodeSigners([0, 9]))).toBe('0201');
    expect(encodeSigners([])).toHaveLength(0);
  });

  it('duplicates collapse and the result is sorted', () => {
    expect(decodeSigners(encodeSigners([5, 3, 5, 0]))).toEqual([0, 3, 5]);
  });

  it('rejects a non-minimal encoding, including a lone zero byte', () => {
    for (const hex of ['00', '0006', '000100']) {
      const err = (() => {
        try {
          decodeSigners(hexToBytes(hex));
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(WarpFormatError);
      expect((err as Error).message).toMatch(/leading zero/);
    }
  });

  it('rejects an index at or past the set size', () => {
    expect(decodeSigners(hexToBytes('06'), 3)).toEqual([1, 2]);
    expect(() => decodeSigners(hexToBytes('06'), 2)).toThrow(/index 2 but the validator set has 2/);
    expect(() => decodeSigners(hexToBytes('0100'), 8)).toThrow(WarpFormatError);
    expect(decodeSigners(hexToBytes('0100'), 9)).toEqual([8]);
    expect(decodeSigners(new Uint8Array(0), 0)).toEqual([]);
  });

  it('refuses negative, fractional and absurd indices when encoding', () => {
    expect(() => encodeSigners([-1])).toThrow(WarpFormatError);
    expect(() => encodeSigners([1.5])).toThrow(WarpFormatError);
    expect(() => encodeSigners([MAX_SIGNER_INDEX + 1])).toThrow(WarpFormatError);
  });

  it('round-trips 2,000-validator sets', () => {
    const all = Array.from({ length: 2000 }, (_, i) => i);
    const twoThirds = all.filter((i) => i % 3 !== 0);
    expect(decodeSigners(encodeSigners(twoThirds), 2000)).toEqual(twoThirds);
    expect(decodeSigners(encodeSigners(all), 2000)).toEqual(all);
    expect(encodeSigners(all)).toHaveLength(250);
  });
});
