// BlsBackend over @noble/curves (pure JS): the fallback when the native blst binding cannot load,
// and the only backend that can check proofs of possession (blst hard-codes the _SIG_ DST).
//
// noble re-validates points in many places (every pairingBatch, every toBytes runs a subgroup
// check). Handles made here are validated exactly once, when parsed, so the hot paths below go
// straight to the Miller loop and encode points themselves instead of calling those helpers.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import type { AffinePoint } from '@noble/curves/abstract/curve.js';
import type { Fp2 } from '@noble/curves/abstract/tower.js';
import type { WeierstrassPoint } from '@noble/curves/abstract/weierstrass.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { POP_DST, PUBLIC_KEY_LENGTH, SECRET_KEY_LENGTH, SIGNATURE_DST, SIGNATURE_LENGTH, SIGNATURE_UNCOMPRESSED_LENGTH } from './constants.js';
import { expectLength, ownCopy, parseSecretScalar, REASON } from './input-checks.js';
import { multiScalarMul64 } from './msm.js';
import { randomNonZeroScalars } from './random-scalars.js';
import { BlsError, type BlsBackend, type PublicKey, type SecretKey, type Signature } from './types.js';

type G1Point = WeierstrassPoint<bigint>;
type G2Point = WeierstrassPoint<Fp2>;

/** What a noble PublicKey carries: the point and its negation in affine form for the pairing. */
interface NoblePublicKey {
  readonly point: G1Point;
  /** -pk, affine; undefined for an aggregate that summed to infinity (verifies nothing). */
  readonly negated: AffinePoint<bigint> | undefined;
}

const { G1, G2, fields } = bls12_381;
const { Fp, Fp12 } = fields;
const signatures = bls12_381.longSignatures;
const G1_BASE_AFFINE = G1.Point.BASE.toAffine();
const FP_BYTES = 48;
const HALF_P = (Fp.ORDER - 1n) / 2n;
/** encodeSum's layout: Σ pk (x, y) then Σ sig (x.c0, x.c1, y.c0, y.c1), 48 bytes each. */
const SUM_BYTES = 6 * FP_BYTES;

// ZCash encoding, written out so that encoding an already-valid point costs no subgroup check.
// The sort flag (0x20) marks the lexicographically larger of y and -y.
function isLargerY(parts: readonly bigint[]): boolean {
  for (const part of parts) if (part !== 0n) return part > HALF_P;
  return false;
}

function encodeG1(point: G1Point): Uint8Array {
  if (point.is0()) return infinityEncoding(PUBLIC_KEY_LENGTH);
  const { x, y } = point.toAffine();
  const out = numberToBytesBE(x, FP_BYTES);
  out[0] = (out[0] as number) | 0x80 | (isLargerY([y]) ? 0x20 : 0);
  return out;
}

function encodeG2(point: G2Point): Uint8Array {
  if (point.is0()) return infinityEncoding(SIGNATURE_LENGTH);
  const { x, y } = point.toAffine();
  const out = new Uint8Array(SIGNATURE_LENGTH);
  out.set(numberToBytesBE(x.c1, FP_BYTES), 0);
  out.set(numberToBytesBE(x.c0, FP_BYTES), FP_BYTES);
  out[0] = (out[0] as number) | 0x80 | (isLargerY([y.c1, y.c0]) ? 0x20 : 0);
  return out;
}

function infinityEncoding(length: number): Uint8Array {
  const out = new Uint8Array(length);
  out[0] = 0xc0;
  return out;
}

/** Maps noble's decoding errors onto the reasons both backends share. */
function decodeReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes('subgroup')) return REASON.notInSubgroup;
  // A compressed x whose x³ + b has no square root names no curve point.
  if (/equation|square root|point: compressed/.test(message)) return REASON.notOnCurve;
  return `${REASON.badEncoding} (${message})`;
}

function decodeSignaturePoint(bytes: Uint8Array, index?: number): G2Point {
  expectLength(bytes, SIGNATURE_LENGTH, 'signature', index);
  try {
    // Decompresses, checks the curve equation and subgroup membership; allows infinity.
    return signatures.Signature.fromBytes(bytes);
  } catch (error) {
    throw new BlsError('signature', decodeReason(error), index);
  }
}

const G2_B = fields.Fp2.create({ c0: 4n, c1: 4n });

/**
 * Decompresses a ZCash-encoded G2 point and checks only that it is on the curve: no subgroup
 * check (noble's fromBytes always makes one). Infinity takes the strict path (it is in G2).
 */
function decodeSignaturePointUnchecked(bytes: Uint8Array, index: number): G2Point {
  expectLength(bytes, SIGNATURE_LENGTH, 'signature', index);
  const flags = bytes[0]!;
  if ((flags & 0x80) === 0) throw new BlsError('signature', REASON.badEncoding, index);
  if ((flags & 0x40) !== 0) return decodeSignaturePoint(bytes, index);
  const c1Bytes = bytes.slice(0, FP_BYTES);
  c1Bytes[0] = flags & 0x1f;
  const c1 = bytesToNumberBE(c1Bytes);
  const c0 = bytesToNumberBE(bytes.subarray(FP_BYTES));
  if (c1 >= Fp.ORDER || c0 >= Fp.ORDER) throw new BlsError('signature', REASON.badEncoding, index);
  const { Fp2 } = fields;
  const x = Fp2.create({ c0, c1 });
  let y: Fp2 | undefined;
  try {
    y = Fp2.sqrt(Fp2.add(Fp2.pow(x, 3n), G2_B));
  } catch {
    y = undefined;
  }
  if (y === undefined) throw new BlsError('signature', REASON.notOnCurve, index);
  // The sort flag (0x20) marks the lexicographically larger of y and -y.
  if (isLargerY([y.c1, y.c0]) !== ((flags & 0x20) !== 0)) y = Fp2.neg(y);
  return G2.Point.fromAffine({ x, y });
}

/**
 * A ZCash uncompressed G2 point (x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0) checked only to be on the curve, as
 * blst's deserialize does: compression and sort flags clear, every coordinate below p, infinity
 * only as the 0x40 flag with the rest zero.
 */
function decodeUncompressedUnchecked(bytes: Uint8Array, index?: number): G2Point {
  expectLength(bytes, SIGNATURE_UNCOMPRESSED_LENGTH, 'signature', index);
  const flags = bytes[0]!;
  if ((flags & 0xa0) !== 0) throw new BlsError('signature', REASON.badEncoding, index);
  if ((flags & 0x40) !== 0) {
    if ((flags & 0x3f) !== 0 || bytes.subarray(1).some((b) => b !== 0)) throw new BlsError('signature', REASON.badEncoding, index);
    return G2.Point.ZERO;
  }
  const parts = [0, 1, 2, 3].map((k) => bytesToNumberBE(bytes.subarray(k * FP_BYTES, (k + 1) * FP_BYTES)));
  if (parts.some((part) => part >= Fp.ORDER)) throw new BlsError('signature', REASON.badEncoding, index);
  const { Fp2 } = fields;
  const x = Fp2.create({ c0: parts[1]!, c1: parts[0]! });
  const y = Fp2.create({ c0: parts[3]!, c1: parts[2]! });
  if (!Fp2.eql(Fp2.sqr(y), Fp2.add(Fp2.pow(x, 3n), G2_B))) throw new BlsError('signature', REASON.notOnCurve, index);
  return G2.Point.fromAffine({ x, y });
}

/** Either form, checked only to be on the curve (the sums' decoding). */
function decodeAnyUnchecked(bytes: Uint8Array, index: number): G2Point {
  return bytes.length === SIGNATURE_UNCOMPRESSED_LENGTH ? decodeUncompressedUnchecked(bytes, index) : decodeSignaturePointUnchecked(bytes, index);
}

function encodeG2Uncompressed(point: G2Point): Uint8Array {
  const out = new Uint8Array(SIGNATURE_UNCOMPRESSED_LENGTH);
  if (point.is0()) {
    out[0] = 0x40;
    return out;
  }
  const { x, y } = point.toAffine();
  [x.c1, x.c0, y.c1, y.c0].forEach((part, k) => out.set(numberToBytesBE(part, FP_BYTES), k * FP_BYTES));
  return out;
}

function nobleKey(point: G1Point): NoblePublicKey {
  return { point, negated: point.is0() ? undefined : point.negate().toAffine() };
}

function makePublicKey(point: G1Point, bytes: Uint8Array = encodeG1(point)): PublicKey {
  return { bytes, native: nobleKey(point) };
}

function makeSignature(point: G2Point, bytes: Uint8Array = encodeG2(point)): Signature {
  return { bytes, native: point };
}

function makeSecretKey(scalar: bigint): SecretKey {
  return { bytes: numberToBytesBE(scalar, SECRET_KEY_LENGTH), native: scalar };
}

// Handles are opaque outside their backend; a handle from the other backend is a wiring bug
// that must fail loudly rather than compute garbage.
function pkOf(pk: PublicKey): NoblePublicKey {
  const native = pk.native as Partial<NoblePublicKey> | null;
  if (typeof native !== 'object' || native === null || !(native.point instanceof G1.Point)) {
    throw new TypeError('this PublicKey was not made by the noble BLS backend');
  }
  return native as NoblePublicKey;
}

function sigOf(sig: Signature): G2Point {
  if (!(sig.native instanceof G2.Point)) {
    throw new TypeError('this Signature was not made by the noble BLS backend');
  }
  return sig.native;
}

function skOf(sk: SecretKey): bigint {
  if (typeof sk.native !== 'bigint') {
    throw new TypeError('this SecretKey was not made by the noble BLS backend');
  }
  return sk.native;
}

/** e(-pk, H(m))·e(G, sig) == 1, straight from already-validated points. */
function pairingCheck(pk: NoblePublicKey, hashed: G2Point, sig: G2Point): boolean {
  // Neither side may be infinity: no non-zero key signs to infinity, and the pairing
  // precomputation is undefined for it.
  if (pk.negated === undefined || sig.is0() || hashed.is0()) return false;
  const miller = bls12_381.millerLoopBatch([
    [bls12_381.utils.calcPairingPrecomputes(hashed), pk.negated.x, pk.negated.y],
    [bls12_381.utils.calcPairingPrecomputes(sig), G1_BASE_AFFINE.x, G1_BASE_AFFINE.y],
  ]);
  return Fp12.eql(Fp12.finalExponentiate(miller), Fp12.ONE);
}

function signPoint(scalar: bigint, message: Uint8Array, dst: string): G2Point {
  return signatures.hash(message, dst).multiply(scalar);
}

function sumPoints<P extends { add(other: P): P }>(zero: P, points: readonly P[]): P {
  let sum = zero;
  for (const point of points) sum = sum.add(point);
  return sum;
}

export function createNobleBackend(): BlsBackend {
  const backend: BlsBackend = {
    name: 'noble',

    publicKeyFromBytes(bytes) {
      expectLength(bytes, PUBLIC_KEY_LENGTH, 'publicKey');
      let point: G1Point;
      try {
        point = G1.Point.fromBytes(bytes);
      } catch (error) {
        throw new BlsError('publicKey', decodeReason(error));
      }
      if (point.is0()) throw new BlsError('publicKey', REASON.infinity);
      return makePublicKey(point, ownCopy(bytes));
    },

    signatureFromBytes(bytes) {
      return makeSignature(decodeSignaturePoint(bytes), ownCopy(bytes));
    },

    signatureFromUncompressed(bytes) {
      const point = decodeUncompressedUnchecked(bytes);
      if (!point.isTorsionFree()) throw new BlsError('signature', REASON.notInSubgroup);
      return makeSignature(point);
    },

    secretKeyFromBytes(bytes) {
      return makeSecretKey(parseSecretScalar(bytes));
    },

    generateSecretKey() {
      // 48 random bytes from the system CSPRNG reduced into [1, r): bias below 2^-128.
      return backend.secretKeyFromBytes(bls12_381.utils.randomSecretKey());
    },

    publicKeyOf(sk) {
      const point = G1.Point.BASE.multiply(skOf(sk));
      return makePublicKey(point);
    },

    publicKeyUncompressed(pk) {
      const { point } = pkOf(pk);
      const out = new Uint8Array(2 * FP_BYTES);
      if (point.is0()) {
        // Only an aggregate can be infinity; flag it as blst does.
        out[0] = 0x40;
        return out;
      }
      const { x, y } = point.toAffine();
      out.set(numberToBytesBE(x, FP_BYTES), 0);
      out.set(numberToBytesBE(y, FP_BYTES), FP_BYTES);
      return out;
    },

    signatureUncompressed(sig) {
      return encodeG2Uncompressed(sigOf(sig));
    },

    sign(sk, message) {
      return makeSignature(signPoint(skOf(sk), message, SIGNATURE_DST));
    },

    verify(pk, message, sig) {
      return pairingCheck(pkOf(pk), signatures.hash(message, SIGNATURE_DST), sigOf(sig));
    },

    aggregatePublicKeys(pks) {
      if (pks.length === 0) throw new BlsError('publicKey', 'no public keys to aggregate');
      const sum = sumPoints(
        G1.Point.ZERO,
        pks.map((pk) => pkOf(pk).point),
      );
      return makePublicKey(sum);
    },

    aggregateSignatures(sigs) {
      if (sigs.length === 0) throw new BlsError('signature', 'no signatures to aggregate');
      return makeSignature(sumPoints(G2.Point.ZERO, sigs.map(sigOf)));
    },

    sumUncheckedSignatures(list) {
      const rejected: number[] = [];
      let sum: G2Point | undefined;
      list.forEach((bytes, i) => {
        let point: G2Point;
        try {
          point = decodeAnyUnchecked(bytes, i);
        } catch {
          rejected.push(i);
          return;
        }
        sum = sum === undefined ? point : sum.add(point);
      });
      return { sum: sum === undefined ? undefined : makeSignature(sum), rejected };
    },

    verifyAggregate(pk, message, sig) {
      return sigOf(sig).isTorsionFree() && backend.verify(pk, message, sig);
    },

    verifyAggregates(sets) {
      // One by one: noble is the fallback, and its pairings cost ~17 ms each whatever is shared.
      return sets.length > 0 && sets.every((set) => backend.verifyAggregate(set.pk, set.message, set.sig));
    },

    verifySameMessage(message, pairs) {
      if (pairs.length === 0) return false;
      const sigPoints = pairs.map((pair) => sigOf(pair.sig));
      // An infinity signature is never one signer's valid signature (blst refuses it too).
      if (sigPoints.some((point) => point.is0())) return false;
      const scalars = randomNonZeroScalars(pairs.length);
      const blindedPk = multiScalarMul64(
        G1.Point.ZERO,
        pairs.map((pair) => pkOf(pair.pk).point),
        scalars,
      );
      const blindedSig = multiScalarMul64(G2.Point.ZERO, sigPoints, scalars);
      return pairingCheck(nobleKey(blindedPk), signatures.hash(message, SIGNATURE_DST), blindedSig);
    },

    encodeSum({ pk, sig }) {
      // Affine coordinates; the point at infinity is (0, 0), which fromAffine maps back to ZERO.
      const out = new Uint8Array(SUM_BYTES);
      const pkPoint = pkOf(pk).point;
      const sigPoint = sigOf(sig);
      const coordinates: bigint[] = [];
      if (!pkPoint.is0()) {
        const { x, y } = pkPoint.toAffine();
        coordinates.push(x, y);
      } else coordinates.push(0n, 0n);
      if (!sigPoint.is0()) {
        const { x, y } = sigPoint.toAffine();
        coordinates.push(x.c0, x.c1, y.c0, y.c1);
      } else coordinates.push(0n, 0n, 0n, 0n);
      coordinates.forEach((c, i) => out.set(numberToBytesBE(c, FP_BYTES), i * FP_BYTES));
      return out;
    },

    negateSum({ pk, sig }) {
      return { pk: makePublicKey(pkOf(pk).point.negate()), sig: makeSignature(sigOf(sig).negate()) };
    },

    decodeTrustedSum(bytes) {
      if (bytes.length !== SUM_BYTES) throw new TypeError(`a running sum is ${SUM_BYTES} bytes, got ${bytes.length}`);
      const c = Array.from({ length: 6 }, (_, i) => bytesToNumberBE(bytes.subarray(i * FP_BYTES, (i + 1) * FP_BYTES)));
      // fromAffine checks only that the coordinates are field elements: these points were
      // summed here from checked ones.
      const pkPoint = G1.Point.fromAffine({ x: c[0]!, y: c[1]! });
      const sigPoint = G2.Point.fromAffine({
        x: fields.Fp2.create({ c0: c[2]!, c1: c[3]! }),
        y: fields.Fp2.create({ c0: c[4]!, c1: c[5]! }),
      });
      return { pk: makePublicKey(pkPoint), sig: makeSignature(sigPoint) };
    },

    signProofOfPossession(sk) {
      return backend.signWithDst(sk, backend.publicKeyOf(sk).bytes, POP_DST);
    },

    verifyProofOfPossession(pk, pop) {
      return backend.verifyWithDst(pk, pk.bytes, pop, POP_DST);
    },

    signWithDst(sk, message, dst) {
      return makeSignature(signPoint(skOf(sk), message, dst));
    },

    verifyWithDst(pk, message, sig, dst) {
      return pairingCheck(pkOf(pk), signatures.hash(message, dst), sigOf(sig));
    },
  };
  return backend;
}
