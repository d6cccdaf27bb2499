// A fold's signatures and keys travel to the worker packed end to end in two buffers: positions
// are kept, the slots are 96 bytes (192 once any signature is uncompressed), and a signature whose
// length its compression flag contradicts (or of another length) takes an all-zero slot that no
// backend decodes.
import { describe, expect, it } from 'vitest';
import { keyOffset, packBatch, signatureAt, type PackedBatch } from '../../src/bls-pool/messages.js';
import { backends, blst, utf8 } from '../bls/helpers.js';
import { secretKey } from './helpers.js';

/** A 96-byte compressed-looking signature (compression flag set) filled with `fill`. */
const compressed = (fill: number): Uint8Array => {
  const out = new Uint8Array(96).fill(fill);
  out[0] = 0x80 | (fill & 0x1f);
  return out;
};
/** A 192-byte uncompressed-looking one (flags clear). */
const uncompressed = (fill: number): Uint8Array => {
  const out = new Uint8Array(192).fill(fill);
  out[0] = fill & 0x1f;
  return out;
};
const key = (fill: number): Uint8Array => new Uint8Array(48).fill(fill);
/** The batch's key at `i`, where the worker reads it. */
const keyAt = (batch: PackedBatch, i: number): Uint8Array => batch.pks.subarray(keyOffset(i), keyOffset(i + 1));

describe('packBatch', () => {
  it('keeps every signature and key at its position, in two buffers of their own', () => {
    const packed = packBatch({ sigs: [compressed(1), compressed(2), compressed(3)], pks: [key(7), key(8), key(9)] });
    expect(packed.count).toBe(3);
    expect(packed.slotBytes).toBe(96);
    expect(packed.sigs.byteLength).toBe(3 * 96);
    expect(packed.pks.byteLength).toBe(3 * 48);
    // Whole buffers (they are transferred), not views into a larger one.
    expect(packed.sigs.buffer.byteLength).toBe(3 * 96);
    expect(packed.pks.buffer.byteLength).toBe(3 * 48);
    for (let i = 0; i < 3; i++) {
      expect(signatureAt(packed, i)).toEqual(compressed(i + 1));
      expect(keyAt(packed, i)).toEqual(key(i + 7));
    }
  });

  it('takes 192-byte slots once any signature is uncompressed, and gives each back in its own form', () => {
    const packed = packBatch({ sigs: [compressed(1), uncompressed(2), compressed(3)], pks: [key(7), key(8), key(9)] });
    expect(packed.slotBytes).toBe(192);
    expect(packed.sigs.byteLength).toBe(3 * 192);
    expect(signatureAt(packed, 0)).toEqual(compressed(1));
    expect(signatureAt(packed, 1)).toEqual(uncompressed(2));
    expect(signatureAt(packed, 2)).toEqual(compressed(3));
    expect(keyAt(packed, 2)).toEqual(key(9));
  });

  it('gives a signature of another length, or whose compression flag contradicts its length, an all-zero slot, which no backend decodes', () => {
    const flagless = new Uint8Array(96).fill(5);
    const flagged192 = uncompressed(6);
    flagged192[0] = 0x80;
    const cases = [
      { sigs: [compressed(1), new Uint8Array(95).fill(5), new Uint8Array(97).fill(6), flagless], bad: [1, 2, 3], slot: 96 },
      { sigs: [compressed(1), new Uint8Array(95).fill(5), flagless, flagged192, uncompressed(9)], bad: [1, 2, 3], slot: 192 },
    ];
    for (const { sigs, bad, slot } of cases) {
      const packed = packBatch({ sigs, pks: sigs.map((_, i) => key(i)) });
      expect(packed.slotBytes).toBe(slot);
      for (const i of bad) {
        expect(signatureAt(packed, i)).toEqual(new Uint8Array(slot));
        for (const backend of backends) expect(backend.sumUncheckedSignatures([signatureAt(packed, i)]).rejected).toEqual([0]);
      }
    }
  });

  it('round-trips real signatures of both forms to the same sum', () => {
    const message = utf8('packed forms');
    const sigs = [0, 1, 2].map((i) => blst.sign(secretKey(`packed-${i}`), message));
    const packed = packBatch({ sigs: [sigs[0]!.bytes, blst.signatureUncompressed(sigs[1]!), sigs[2]!.bytes], pks: [key(1), key(2), key(3)] });
    const unpacked = [0, 1, 2].map((i) => signatureAt(packed, i));
    expect(unpacked.map((s) => s.length)).toEqual([96, 192, 96]);
    const expected = blst.aggregateSignatures(sigs).bytes;
    for (const backend of backends) expect(backend.sumUncheckedSignatures(unpacked).sum!.bytes).toEqual(expected);
  });
});
