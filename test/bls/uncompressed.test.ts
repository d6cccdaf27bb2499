// The 192-byte uncompressed signature form our own signer protocol carries (peers/frames.ts): both
// backends encode it alike, parse it with the checks of the compressed form, refuse what blst's
// deserialize refuses, and sum it (mixed with the compressed form) without a subgroup check.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { numberToBytesBE } from '@noble/curves/utils.js';
import { describe, expect, it } from 'vitest';
import type { BlsBackend } from '../../src/bls/types.js';
import { secretKey } from '../bls-pool/helpers.js';
import { backends, blst, bytesToHex, edited, g2PointOutsideSubgroupUncompressed, hexToBytes, uncompressedOf, utf8, vectors } from './helpers.js';

const vector = vectors.bls;
const vectorSignature = hexToBytes(vector.signature);
const vectorMessage = utf8(vector.messageUtf8);
const vectorKey = hexToBytes(vector.publicKey);

/** The uncompressed form from blst's own encoder: the reference for both backends. */
const uncompressedVector = uncompressedOf(vectorSignature);
const P = numberToBytesBE(bls12_381.fields.Fp.ORDER, 48);
const outsideSubgroup = g2PointOutsideSubgroupUncompressed();
const infinity = edited(new Uint8Array(192), (b) => (b[0] = 0x40));

const refusals: [string, Uint8Array, RegExp][] = [
  ['the compression flag set', edited(uncompressedVector, (b) => (b[0] = b[0]! | 0x80)), /bad encoding/],
  ['the sort flag set', edited(uncompressedVector, (b) => (b[0] = b[0]! | 0x20)), /bad encoding/],
  ['a coordinate equal to p', edited(uncompressedVector, (b) => b.set(P, 48)), /bad encoding/],
  ['y changed: off the curve', edited(uncompressedVector, (b) => (b[191] = b[191]! ^ 1)), /not a point on the curve/],
  ['all zero: (0, 0) is off the curve', new Uint8Array(192), /not a point on the curve/],
  ['infinity with bits after its flag', edited(infinity, (b) => (b[100] = 1)), /bad encoding/],
];

describe('the uncompressed signature form', () => {
  it('is the same 192 bytes from both backends, for the golden vector', () => {
    expect(uncompressedVector).toHaveLength(192);
    for (const backend of backends) {
      const sig = backend.signatureFromBytes(vectorSignature);
      expect(bytesToHex(backend.signatureUncompressed(sig))).toBe(bytesToHex(uncompressedVector));
    }
  });

  describe.each(backends)('$name backend', (backend: BlsBackend) => {
    it('parses to the same signature as the compressed form: compressed bytes, and it verifies', () => {
      const sig = backend.signatureFromUncompressed(uncompressedVector);
      expect(bytesToHex(sig.bytes)).toBe(vector.signature.replace(/^0x/, ''));
      expect(backend.verify(backend.publicKeyFromBytes(vectorKey), vectorMessage, sig)).toBe(true);
    });

    it.each(refusals)('refuses %s', (_, bytes, reason) => {
      expect(() => backend.signatureFromUncompressed(bytes)).toThrow(reason);
      expect(backend.sumUncheckedSignatures([bytes]).rejected).toEqual([0]);
    });

    it('refuses the compressed length (which the sums take as the compressed form)', () => {
      expect(() => backend.signatureFromUncompressed(vectorSignature)).toThrow(/expected 192 bytes/);
    });

    it('refuses a point outside the subgroup, which the unchecked sum takes and the aggregate check then fails', () => {
      expect(() => backend.signatureFromUncompressed(outsideSubgroup)).toThrow(/subgroup/);
      const { sum, rejected } = backend.sumUncheckedSignatures([vectorSignature, outsideSubgroup]);
      expect(rejected).toEqual([]);
      expect(backend.verifyAggregate(backend.publicKeyFromBytes(vectorKey), vectorMessage, sum!)).toBe(false);
    });

    it('takes infinity (as signatureFromBytes does) and writes it back as the bare flag', () => {
      const sig = backend.signatureFromUncompressed(infinity);
      expect(bytesToHex(backend.signatureUncompressed(sig))).toBe(bytesToHex(infinity));
    });

    it('sums a list that mixes both forms to the sum of the compressed ones, and the aggregate passes', () => {
      const message = utf8('mixed forms');
      const sks = [0, 1, 2, 3].map((i) => secretKey(`mixed-${i}`));
      const sigs = sks.map((sk) => blst.sign(sk, message));
      const mixed = sigs.map((s, i) => (i % 2 === 0 ? s.bytes : blst.signatureUncompressed(s)));
      const { sum, rejected } = backend.sumUncheckedSignatures(mixed);
      expect(rejected).toEqual([]);
      expect(bytesToHex(sum!.bytes)).toBe(bytesToHex(backend.sumUncheckedSignatures(sigs.map((s) => s.bytes)).sum!.bytes));
      const key = backend.aggregatePublicKeys(sks.map((sk) => backend.publicKeyFromBytes(blst.publicKeyOf(sk).bytes)));
      expect(backend.verifyAggregate(key, message, sum!)).toBe(true);
    });
  });

  it('is never taken where Avalanche takes only the compressed form (signatureFromBytes)', () => {
    for (const backend of backends) expect(() => backend.signatureFromBytes(uncompressedVector)).toThrow(/expected 96 bytes/);
  });
});
