// The many-signatures-one-message paths: verifySameMessage (the random-scalar batch check that
// bisection uses) must pass only when every individual signature is valid, in particular not for
// bad signatures that cancel out in a plain sum; and the running sums the aggregator hands
// between worker threads (encodeSum / decodeTrustedSum) must come back as the same points.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { describe, expect, it } from 'vitest';
import { REASON } from '../../src/bls/input-checks.js';
import { multiScalarMul64 } from '../../src/bls/msm.js';
import { randomNonZeroScalars } from '../../src/bls/random-scalars.js';
import { BlsError, type BlsBackend, type PublicKey } from '../../src/bls/types.js';
import { backends, blst, bytesToHex, g2PointOutsideSubgroup, thrown, utf8 } from './helpers.js';

const G2Codec = bls12_381.longSignatures.Signature;
const addG2 = (a: Uint8Array, b: Uint8Array): Uint8Array =>
  G2Codec.toBytes(G2Codec.fromBytes(a).add(G2Codec.fromBytes(b)));
const subG2 = (a: Uint8Array, b: Uint8Array): Uint8Array =>
  G2Codec.toBytes(G2Codec.fromBytes(a).subtract(G2Codec.fromBytes(b)));

const message = utf8('warp message to be signed by many validators');
const otherMessage = utf8('a different message');

// noble costs ~25 ms per signature check, so it gets a small committee.
const committeeSize = { blst: 64, noble: 4 } as const;

interface Committee {
  pks: PublicKey[];
  /** Each member's 96-byte signature over `message`. */
  sigs: Uint8Array[];
  /** Each member's signature over `otherMessage`. */
  otherSigs: Uint8Array[];
}

function committee(backend: BlsBackend): Committee {
  // Keys and signatures come from blst (fast); both backends produce identical bytes.
  const secrets = Array.from({ length: committeeSize[backend.name] }, () => blst.generateSecretKey());
  return {
    pks: secrets.map((sk) => backend.publicKeyFromBytes(blst.publicKeyOf(sk).bytes)),
    sigs: secrets.map((sk) => blst.sign(sk, message).bytes),
    otherSigs: secrets.map((sk) => blst.sign(sk, otherMessage).bytes),
  };
}

function pairs(c: Committee, sigs: Uint8Array[] = c.sigs) {
  return c.pks.map((pk, i) => ({ pk, sig: sigs[i]! }));
}

describe.each(backends)('$name backend: verifySameMessage and running sums', (backend) => {
  const c = committee(backend);
  const parsedPairs = (sigs: Uint8Array[]) =>
    c.pks.map((pk, i) => ({ pk, sig: backend.signatureFromBytes(sigs[i]!) }));
  /** What a plain aggregate check (Σ pk, Σ sig) says: blind to cancelling errors. */
  const plainCheck = (sigs: Uint8Array[]) =>
    backend.verify(
      backend.aggregatePublicKeys(c.pks),
      message,
      backend.aggregateSignatures(sigs.map((s) => backend.signatureFromBytes(s))),
    );

  it('passes when every signature is valid', () => {
    expect(backend.verifySameMessage(message, parsedPairs(c.sigs))).toBe(true);
    expect(plainCheck(c.sigs)).toBe(true);
  });

  it('fails when one signature is over another message', () => {
    const sigs = [...c.sigs];
    sigs[1] = c.otherSigs[1]!;
    expect(plainCheck(sigs)).toBe(false);
    expect(backend.verifySameMessage(message, parsedPairs(sigs))).toBe(false);
  });

  it('fails when two signers swap signatures, which a plain aggregate cannot see', () => {
    const sigs = [...c.sigs];
    [sigs[0], sigs[2]] = [c.sigs[2]!, c.sigs[0]!];
    expect(plainCheck(sigs)).toBe(true);
    expect(backend.verifySameMessage(message, parsedPairs(sigs))).toBe(false);
  });

  it('catches two bad signatures that cancel out in a plain aggregate (sig_a + X, sig_b - X)', () => {
    const x = c.otherSigs[3]!;
    const sigs = [...c.sigs];
    sigs[0] = addG2(c.sigs[0]!, x);
    sigs[1] = subG2(c.sigs[1]!, x);
    expect(plainCheck(sigs)).toBe(true);
    expect(backend.verifySameMessage(message, parsedPairs(sigs))).toBe(false);
  });

  it('fails, without throwing, for the point at infinity (it parses, but is nobody\'s signature)', () => {
    const parsed = parsedPairs(c.sigs);
    parsed[3] = { pk: c.pks[3]!, sig: backend.signatureFromBytes(Uint8Array.of(0xc0, ...new Uint8Array(95))) };
    expect(backend.verifySameMessage(message, parsed)).toBe(false);
  });

  it('refuses empty input: nothing to aggregate, nothing verified', () => {
    expect(thrown(() => backend.aggregateSignatures([]))).toBeInstanceOf(BlsError);
    expect(thrown(() => backend.aggregatePublicKeys([]))).toBeInstanceOf(BlsError);
    expect(backend.verifySameMessage(message, [])).toBe(false);
  });

  it('a running sum survives encodeSum / decodeTrustedSum as the same points', () => {
    const pk = backend.aggregatePublicKeys(c.pks);
    const sig = backend.aggregateSignatures(c.sigs.map((s) => backend.signatureFromBytes(s)));
    const back = backend.decodeTrustedSum(backend.encodeSum({ pk, sig }));
    expect(bytesToHex(back.pk.bytes)).toBe(bytesToHex(pk.bytes));
    expect(bytesToHex(back.sig.bytes)).toBe(bytesToHex(sig.bytes));
    expect(backend.verify(back.pk, message, back.sig)).toBe(true);
    // Adding to a decoded sum is adding to the points it stands for.
    const single = backend.decodeTrustedSum(backend.encodeSum({ pk: c.pks[0]!, sig: backend.signatureFromBytes(c.sigs[0]!) }));
    const rest = backend.aggregateSignatures(c.sigs.slice(1).map((s) => backend.signatureFromBytes(s)));
    expect(bytesToHex(backend.aggregateSignatures([single.sig, rest]).bytes)).toBe(bytesToHex(sig.bytes));
  });

  it('a running sum at infinity (keys and signatures that cancel) round-trips and verifies nothing', () => {
    const negated = (bytes: Uint8Array) => G2Codec.toBytes(G2Codec.fromBytes(bytes).negate());
    const negPk = bls12_381.longSignatures.getPublicKey(new Uint8Array(32).fill(1));
    const pk = backend.publicKeyFromBytes(negPk.toBytes(true));
    const minusPk = backend.publicKeyFromBytes(negPk.negate().toBytes(true));
    const zeroPk = backend.aggregatePublicKeys([pk, minusPk]);
    const zeroSig = backend.aggregateSignatures([c.sigs[0]!, negated(c.sigs[0]!)].map((s) => backend.signatureFromBytes(s)));
    const back = backend.decodeTrustedSum(backend.encodeSum({ pk: zeroPk, sig: zeroSig }));
    expect(bytesToHex(back.sig.bytes)).toBe(bytesToHex(zeroSig.bytes));
    expect(bytesToHex(back.pk.bytes)).toBe(bytesToHex(zeroPk.bytes));
    expect(backend.verify(back.pk, message, back.sig)).toBe(false);
  });

  it('refuses bytes of the wrong length for a running sum', () => {
    expect(() => backend.decodeTrustedSum(new Uint8Array(100))).toThrow(/running sum/);
  });
});

describe('multiScalarMul64 (noble MSM)', () => {
  it('equals the sum of individual scalar multiplications', () => {
    const { G1 } = bls12_381;
    for (const count of [1, 2, 7, 40]) {
      const points = Array.from({ length: count }, (_, i) => G1.Point.BASE.multiply(BigInt(i * 7919 + 3)));
      const scalars = randomNonZeroScalars(count);
      scalars[0] = 0xffffffffffffffffn; // the top bit of every window set
      const expected = points.reduce((sum, p, i) => sum.add(p.multiply(scalars[i]!)), G1.Point.ZERO);
      expect(multiScalarMul64(G1.Point.ZERO, points, scalars).equals(expected)).toBe(true);
    }
  });

  it('random scalars are non-zero and distinct, beyond the 65,536-byte getRandomValues limit', () => {
    const scalars = randomNonZeroScalars(20_000);
    expect(scalars.every((s) => s !== 0n)).toBe(true);
    expect(new Set(scalars).size).toBe(20_000);
  });
});
