// Negating a compressed point by its encoding (flipping the larger-y flag) must give -P in both
// backends: the BLS pool removes signatures from a running sum this way when it checks a subset.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { describe, expect, it } from 'vitest';
import { negatedEncoding } from '../../src/bls/negate.js';
import { BlsError } from '../../src/bls/types.js';
import { backends, blst, bytesToHex, utf8 } from './helpers.js';

const message = utf8('negated by its encoding');
const secrets = Array.from({ length: 8 }, () => blst.generateSecretKey());

describe('negatedEncoding', () => {
  it('is -P for keys and signatures, as noble computes it', () => {
    for (const sk of secrets) {
      const pk = blst.publicKeyOf(sk).bytes;
      const sig = blst.sign(sk, message).bytes;
      expect(bytesToHex(negatedEncoding(pk, 'publicKey'))).toBe(bytesToHex(bls12_381.G1.Point.fromBytes(pk).negate().toBytes(true)));
      expect(bytesToHex(negatedEncoding(sig, 'signature'))).toBe(bytesToHex(bls12_381.G2.Point.fromBytes(sig).negate().toBytes(true)));
      // Twice is the point again; the input is not touched.
      expect(bytesToHex(negatedEncoding(negatedEncoding(sig, 'signature'), 'signature'))).toBe(bytesToHex(sig));
    }
  });

  for (const bls of backends) {
    it(`${bls.name}: a sum minus a term by adding the negated encodings verifies as the rest`, () => {
      const pks = secrets.map((sk) => bls.publicKeyFromBytes(blst.publicKeyOf(sk).bytes));
      const sigs = secrets.map((sk) => bls.signatureFromBytes(blst.sign(sk, message).bytes));
      const sumPk = bls.aggregatePublicKeys(pks);
      const sumSig = bls.aggregateSignatures(sigs);
      // Drop the last two from the sums.
      const restPk = bls.aggregatePublicKeys([sumPk, ...pks.slice(-2).map((pk) => bls.publicKeyFromBytes(negatedEncoding(pk.bytes, 'publicKey')))]);
      const restSig = bls.aggregateSignatures([sumSig, ...sigs.slice(-2).map((s) => bls.signatureFromBytes(negatedEncoding(s.bytes, 'signature')))]);
      expect(bytesToHex(restSig.bytes)).toBe(bytesToHex(bls.aggregateSignatures(sigs.slice(0, -2)).bytes));
      expect(bls.verify(restPk, message, restSig)).toBe(true);
      // A negated key with the signature it does not match: not valid.
      expect(bls.verify(bls.publicKeyFromBytes(negatedEncoding(pks[0]!.bytes, 'publicKey')), message, sigs[0]!)).toBe(false);
    });
  }

  it('refuses the point at infinity and uncompressed bytes', () => {
    const infinity = new Uint8Array(96);
    infinity[0] = 0xc0;
    expect(() => negatedEncoding(infinity, 'signature')).toThrow(BlsError);
    expect(() => negatedEncoding(new Uint8Array(96), 'signature')).toThrow(/compressed/);
    expect(() => negatedEncoding(new Uint8Array(0), 'publicKey')).toThrow(BlsError);
  });
});
