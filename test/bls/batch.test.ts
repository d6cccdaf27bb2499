// The many-signatures-one-message paths: blindedAggregate (what the aggregator folds responses
// with) and verifySameMessage. Every individual signature must be valid for them to pass; in
// particular bad signatures that cancel out in a plain sum must be caught.
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

describe.each(backends)('$name backend: blindedAggregate and verifySameMessage', (backend) => {
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
  const blindedCheck = (sigs: Uint8Array[]) => {
    const folded = backend.blindedAggregate(pairs(c, sigs));
    return backend.verify(folded.blindedPk, message, folded.blindedSig);
  };

  it('passes when every signature is valid, and returns the plain sum too', () => {
    const folded = backend.blindedAggregate(pairs(c));
    expect(backend.verify(folded.blindedPk, message, folded.blindedSig)).toBe(true);
    const plain = backend.aggregateSignatures(c.sigs.map((s) => backend.signatureFromBytes(s)));
    expect(bytesToHex(folded.sig.bytes)).toBe(bytesToHex(plain.bytes));
    expect(backend.verify(backend.aggregatePublicKeys(c.pks), message, folded.sig)).toBe(true);
    expect(backend.verifySameMessage(message, parsedPairs(c.sigs))).toBe(true);
  });

  it('fails when one signature is over another message', () => {
    const sigs = [...c.sigs];
    sigs[1] = c.otherSigs[1]!;
    expect(blindedCheck(sigs)).toBe(false);
    expect(backend.verifySameMessage(message, parsedPairs(sigs))).toBe(false);
  });

  it('fails when two signers swap signatures, which a plain aggregate cannot see', () => {
    const sigs = [...c.sigs];
    [sigs[0], sigs[2]] = [c.sigs[2]!, c.sigs[0]!];
    expect(plainCheck(sigs)).toBe(true);
    expect(blindedCheck(sigs)).toBe(false);
    expect(backend.verifySameMessage(message, parsedPairs(sigs))).toBe(false);
  });

  it('catches two bad signatures that cancel out in a plain aggregate (sig_a + X, sig_b - X)', () => {
    const x = c.otherSigs[3]!;
    const sigs = [...c.sigs];
    sigs[0] = addG2(c.sigs[0]!, x);
    sigs[1] = subG2(c.sigs[1]!, x);
    expect(plainCheck(sigs)).toBe(true);
    expect(blindedCheck(sigs)).toBe(false);
    expect(backend.verifySameMessage(message, parsedPairs(sigs))).toBe(false);
  });

  it('throws a BlsError naming the index of a signature outside the subgroup', () => {
    const sigs = [...c.sigs];
    sigs[2] = g2PointOutsideSubgroup();
    const error = thrown(() => backend.blindedAggregate(pairs(c, sigs)));
    expect(error).toBeInstanceOf(BlsError);
    expect(error).toMatchObject({ what: 'signature', index: 2, reason: REASON.notInSubgroup });
    expect((error as Error).message).toContain('index 2');
  });

  it('names the index of a signature that does not parse or is the point at infinity', () => {
    const short = [...c.sigs];
    short[1] = c.sigs[1]!.subarray(0, 95);
    expect(thrown(() => backend.blindedAggregate(pairs(c, short)))).toMatchObject({ index: 1 });
    const infinity = [...c.sigs];
    infinity[3] = Uint8Array.of(0xc0, ...new Uint8Array(95));
    expect(thrown(() => backend.blindedAggregate(pairs(c, infinity)))).toMatchObject({
      index: 3,
      reason: REASON.infinity,
    });
    // verifySameMessage takes parsed signatures; infinity parses, and must simply fail.
    const parsed = parsedPairs(c.sigs);
    parsed[3] = { pk: c.pks[3]!, sig: backend.signatureFromBytes(infinity[3]) };
    expect(backend.verifySameMessage(message, parsed)).toBe(false);
  });

  it('refuses empty input: nothing to aggregate, nothing verified', () => {
    expect(thrown(() => backend.blindedAggregate([]))).toBeInstanceOf(BlsError);
    expect(thrown(() => backend.aggregateSignatures([]))).toBeInstanceOf(BlsError);
    expect(thrown(() => backend.aggregatePublicKeys([]))).toBeInstanceOf(BlsError);
    expect(backend.verifySameMessage(message, [])).toBe(false);
  });

  it('a single signer works', () => {
    const folded = backend.blindedAggregate([{ pk: c.pks[0]!, sig: c.sigs[0]! }]);
    expect(bytesToHex(folded.sig.bytes)).toBe(bytesToHex(c.sigs[0]!));
    expect(backend.verify(folded.blindedPk, message, folded.blindedSig)).toBe(true);
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
