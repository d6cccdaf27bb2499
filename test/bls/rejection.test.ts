// Inputs avalanchego refuses must be refused by both backends, with a BlsError and the same
// reason: infinity keys, points outside the subgroup, bad lengths, bad flag bits, bad scalars.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { describe, expect, it } from 'vitest';
import { CURVE_ORDER } from '../../src/bls/constants.js';
import { REASON } from '../../src/bls/input-checks.js';
import { BlsError, type BlsBackend } from '../../src/bls/types.js';
import {
  backends,
  g1PointOutsideSubgroup,
  g1XNotOnCurve,
  g2PointOutsideSubgroup,
  hexToBytes,
  noble,
  thrown,
  utf8,
  vectors,
} from './helpers.js';

const validPk = hexToBytes(vectors.bls.publicKey);
const validSig = hexToBytes(vectors.bls.signature);

function withFirstByte(bytes: Uint8Array, first: number): Uint8Array {
  const copy = bytes.slice();
  copy[0] = first;
  return copy;
}

function infinity(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  bytes[0] = 0xc0;
  return bytes;
}

function scalarBytes(value: bigint): Uint8Array {
  return hexToBytes(value.toString(16).padStart(64, '0'));
}

function rejection(f: () => unknown): BlsError {
  const error = thrown(f);
  expect(error).toBeInstanceOf(BlsError);
  return error as BlsError;
}

const { x: g1x } = g1PointOutsideSubgroup();

/** Public-key inputs that must fail, with the reason both backends give (undefined: any). */
const badPublicKeys: [string, Uint8Array, string | undefined][] = [
  ['the point at infinity (0xc0 then zeros)', infinity(48), REASON.infinity],
  ['a curve point outside the G1 subgroup', g1PointOutsideSubgroup().bytes, REASON.notInSubgroup],
  ['an x with no point on the curve', g1XNotOnCurve(), REASON.notOnCurve],
  ['47 bytes', validPk.subarray(0, 47), 'expected 48 bytes, got 47'],
  ['49 bytes', Uint8Array.of(...validPk, 0), 'expected 48 bytes, got 49'],
  ['no bytes', new Uint8Array(0), 'expected 48 bytes, got 0'],
  ['the compression flag cleared', withFirstByte(validPk, validPk[0]! & 0x7f), undefined],
  ['compressed + infinity + sort flags (0xe0)', withFirstByte(infinity(48), 0xe0), undefined],
  ['the infinity flag over a non-zero x', withFirstByte(validPk, (validPk[0]! & 0x1f) | 0xc0), undefined],
  ['an x not below the field modulus', (() => {
    // The same x plus the field modulus: a non-canonical encoding of a real x.
    const bytes = hexToBytes((g1x + bls12_381.fields.Fp.ORDER).toString(16).padStart(96, '0'));
    bytes[0] = bytes[0]! | 0x80;
    return bytes;
  })(), undefined],
];

describe.each(backends)('$name backend: rejection', (backend: BlsBackend) => {
  it.each(badPublicKeys)('rejects a public key that is %s', (_label, bytes, reason) => {
    const error = rejection(() => backend.publicKeyFromBytes(bytes));
    expect(error.what).toBe('publicKey');
    if (reason !== undefined) expect(error.reason).toBe(reason);
  });

  it('rejects a signature outside the G2 subgroup', () => {
    const error = rejection(() => backend.signatureFromBytes(g2PointOutsideSubgroup()));
    expect(error.what).toBe('signature');
    expect(error.reason).toBe(REASON.notInSubgroup);
  });

  it('rejects signatures with a bad length or bad flag bits', () => {
    expect(rejection(() => backend.signatureFromBytes(validSig.subarray(0, 95))).reason).toBe(
      'expected 96 bytes, got 95',
    );
    expect(rejection(() => backend.signatureFromBytes(new Uint8Array(192))).reason).toBe(
      'expected 96 bytes, got 192',
    );
    rejection(() => backend.signatureFromBytes(withFirstByte(validSig, validSig[0]! & 0x7f)));
    rejection(() => backend.signatureFromBytes(withFirstByte(infinity(96), 0xe0)));
    rejection(() => backend.signatureFromBytes(withFirstByte(validSig, (validSig[0]! & 0x1f) | 0xc0)));
  });

  it('accepts the infinity signature (as avalanchego does) but it verifies nothing', () => {
    const sig = backend.signatureFromBytes(infinity(96));
    const pk = backend.publicKeyFromBytes(validPk);
    expect(backend.verify(pk, utf8('test'), sig)).toBe(false);
  });

  it('rejects secret keys that are zero, not below the order, or the wrong length', () => {
    expect(rejection(() => backend.secretKeyFromBytes(new Uint8Array(32))).reason).toMatch(/zero/);
    expect(rejection(() => backend.secretKeyFromBytes(scalarBytes(CURVE_ORDER))).reason).toMatch(/order/);
    expect(rejection(() => backend.secretKeyFromBytes(new Uint8Array(32).fill(0xff))).reason).toMatch(/order/);
    expect(rejection(() => backend.secretKeyFromBytes(new Uint8Array(31).fill(1))).what).toBe('secretKey');
    const highest = backend.secretKeyFromBytes(scalarBytes(CURVE_ORDER - 1n));
    expect(backend.publicKeyOf(highest).bytes).toHaveLength(48);
  });

  it('refuses handles made by the other backend', () => {
    const other = backends.find((b) => b !== backend)!;
    const foreignPk = other.publicKeyFromBytes(validPk);
    const sig = backend.signatureFromBytes(validSig);
    expect(() => backend.verify(foreignPk, utf8('test'), sig)).toThrow(TypeError);
  });
});

describe('both backends give the same reason for every bad public key', () => {
  it.each(badPublicKeys)('%s', (_label, bytes) => {
    const [first, second] = backends.map((b) => rejection(() => b.publicKeyFromBytes(bytes)).reason);
    // noble appends its own detail to "bad encoding"; the class of failure must agree.
    expect(first!.split(' (')[0]).toBe(second!.split(' (')[0]);
  });

  it('the constructed out-of-subgroup G1 point really is on the curve', () => {
    // Guards the test itself: the rejection above must be the subgroup check, not decoding.
    const error = rejection(() => noble.publicKeyFromBytes(g1PointOutsideSubgroup().bytes));
    expect(error.reason).toBe(REASON.notInSubgroup);
  });
});
