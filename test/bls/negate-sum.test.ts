// negateSum: (−Σ pk, −Σ sig) in both backends, what the BLS pool adds to a running sum to take
// signatures out of it when it checks the fewest signers (bls-pool/worker.ts finalizeSubset).
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { describe, expect, it } from 'vitest';
import { backends, blst, bytesToHex, utf8 } from './helpers.js';

const message = utf8('a sum minus some of its terms');
const secrets = Array.from({ length: 8 }, () => blst.generateSecretKey());

describe('negateSum', () => {
  for (const bls of backends) {
    const pks = secrets.map((sk) => bls.publicKeyFromBytes(blst.publicKeyOf(sk).bytes));
    const sigs = secrets.map((sk) => bls.signatureFromBytes(blst.sign(sk, message).bytes));
    const sumOf = (from: number, to: number) => ({ pk: bls.aggregatePublicKeys(pks.slice(from, to)), sig: bls.aggregateSignatures(sigs.slice(from, to)) });

    it(`${bls.name}: is −P for both points, as noble computes it, and twice is the sum again`, () => {
      for (const sum of [sumOf(0, 8), sumOf(3, 4)]) {
        const negated = bls.negateSum(sum);
        expect(bytesToHex(negated.pk.bytes)).toBe(bytesToHex(bls12_381.G1.Point.fromBytes(sum.pk.bytes).negate().toBytes(true)));
        expect(bytesToHex(negated.sig.bytes)).toBe(bytesToHex(bls12_381.G2.Point.fromBytes(sum.sig.bytes).negate().toBytes(true)));
        const twice = bls.negateSum(negated);
        expect(bytesToHex(twice.pk.bytes)).toBe(bytesToHex(sum.pk.bytes));
        expect(bytesToHex(twice.sig.bytes)).toBe(bytesToHex(sum.sig.bytes));
      }
    });

    it(`${bls.name}: a sum plus the negation of some of its terms verifies as the rest, and only as the rest`, () => {
      const all = sumOf(0, 8);
      const dropped = bls.negateSum(sumOf(5, 8));
      const restPk = bls.aggregatePublicKeys([all.pk, dropped.pk]);
      const restSig = bls.aggregateSignatures([all.sig, dropped.sig]);
      expect(bytesToHex(restSig.bytes)).toBe(bytesToHex(sumOf(0, 5).sig.bytes));
      expect(bytesToHex(restPk.bytes)).toBe(bytesToHex(sumOf(0, 5).pk.bytes));
      expect(bls.verifyAggregate(restPk, message, restSig)).toBe(true);
      // Keys and signatures must leave together: the rest's signature against every key fails.
      expect(bls.verifyAggregate(all.pk, message, restSig)).toBe(false);
    });

    it(`${bls.name}: leaves the point at infinity as it is (a sum whose terms cancel)`, () => {
      const sum = sumOf(0, 2);
      const zero = { pk: bls.aggregatePublicKeys([sum.pk, bls.negateSum(sum).pk]), sig: bls.aggregateSignatures([sum.sig, bls.negateSum(sum).sig]) };
      const negated = bls.negateSum(zero);
      expect(bytesToHex(negated.pk.bytes)).toBe(bytesToHex(zero.pk.bytes));
      expect(bytesToHex(negated.sig.bytes)).toBe(bytesToHex(zero.sig.bytes));
      expect(negated.sig.bytes[0]! & 0x40).toBe(0x40);
    });
  }
});
