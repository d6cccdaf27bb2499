// A fold's signatures and keys travel to the worker packed end to end in two buffers: positions
// are kept, and a signature of another length takes an all-zero slot that no backend decodes.
import { describe, expect, it } from 'vitest';
import { keyAt, packBatch, signatureAt } from '../../src/bls-pool/messages.js';
import { backends } from '../bls/helpers.js';

const sig = (fill: number): Uint8Array => new Uint8Array(96).fill(fill);
const key = (fill: number): Uint8Array => new Uint8Array(48).fill(fill);

describe('packBatch', () => {
  it('keeps every signature and key at its position, in two buffers of their own', () => {
    const packed = packBatch({ sigs: [sig(1), sig(2), sig(3)], pks: [key(7), key(8), key(9)] });
    expect(packed.count).toBe(3);
    expect(packed.sigs.byteLength).toBe(3 * 96);
    expect(packed.pks.byteLength).toBe(3 * 48);
    // Whole buffers (they are transferred), not views into a larger one.
    expect(packed.sigs.buffer.byteLength).toBe(3 * 96);
    expect(packed.pks.buffer.byteLength).toBe(3 * 48);
    for (let i = 0; i < 3; i++) {
      expect(signatureAt(packed, i)).toEqual(sig(i + 1));
      expect(keyAt(packed, i)).toEqual(key(i + 7));
    }
  });

  it('gives a signature of another length an all-zero slot, which no backend decodes', () => {
    const packed = packBatch({ sigs: [sig(1), new Uint8Array(95).fill(5), new Uint8Array(97).fill(6)], pks: [key(1), key(2), key(3)] });
    expect(signatureAt(packed, 1)).toEqual(new Uint8Array(96));
    expect(signatureAt(packed, 2)).toEqual(new Uint8Array(96));
    for (const backend of backends) expect(backend.sumUncheckedSignatures([signatureAt(packed, 1)]).rejected).toEqual([0]);
  });
});
