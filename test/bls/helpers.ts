// Shared pieces of the BLS tests: both backends, the golden vectors, and points that are on the
// curve but outside the prime-order subgroup.
import { readFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import type { Fp2 } from '@noble/curves/abstract/tower.js';
import { numberToBytesBE } from '@noble/curves/utils.js';
import { createBlstBackend } from '../../src/bls/blst-backend.js';
import { createNobleBackend } from '../../src/bls/noble-backend.js';
import type { BlsBackend } from '../../src/bls/types.js';

export { bytesToHex, hexToBytes } from '../../src/warp/hex.js';

export const noble = createNobleBackend();
export const blst = createBlstBackend(noble);
export const backends: readonly BlsBackend[] = [blst, noble];

interface Vectors {
  bls: {
    secretKey: string;
    publicKey: string;
    messageUtf8: string;
    signature: string;
    proofOfPossession: string;
    publicKeyUncompressed: string;
    signatureWithWrongDst_mustNotVerify: string;
  };
  canonicalSet: {
    validators: { node: string; secretKey: string; publicKey: string; weight: string }[];
    canonical: { publicKey: string; publicKeyUncompressed: string; weight: string; nodes: string[] }[];
    unsignedMessage: string;
    individualSignatures: string[];
    cases: { signerIndices: number[]; aggregateSignature: string }[];
  };
}

export const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/warp-vectors.json', import.meta.url), 'utf8'),
) as Vectors;

const { Fp, Fp2 } = bls12_381.fields;

/** A compressed G1 point (x, y) on y² = x³ + 4 that is not in G1, and its affine form. */
export function g1PointOutsideSubgroup(): { bytes: Uint8Array; x: bigint; y: bigint } {
  for (let x = 1n; ; x++) {
    let y: bigint | undefined;
    try {
      y = Fp.sqrt(Fp.add(Fp.pow(x, 3n), 4n));
    } catch {
      continue;
    }
    if (y === undefined) continue;
    if (bls12_381.G1.Point.fromAffine({ x, y }).isTorsionFree()) continue;
    const bytes = numberToBytesBE(x, 48);
    bytes[0] = (bytes[0] as number) | 0x80;
    return { bytes, x, y };
  }
}

/** y with y² = x³ + 4(1+i) on the G2 curve, or undefined when x is on no point of it. */
function g2CurveY(x: Fp2): Fp2 | undefined {
  try {
    return Fp2.sqrt(Fp2.add(Fp2.pow(x, 3n), Fp2.create({ c0: 4n, c1: 4n })));
  } catch {
    return undefined;
  }
}

/** x compressed as a G2 point's 96 bytes (c1 then c0, big-endian, the compression flag set). */
function compressedG2X(x: Fp2): Uint8Array {
  const bytes = new Uint8Array(96);
  bytes.set(numberToBytesBE(x.c1, 48), 0);
  bytes.set(numberToBytesBE(x.c0, 48), 48);
  bytes[0] = (bytes[0] as number) | 0x80;
  return bytes;
}

/** A compressed G2 point on y² = x³ + 4(1+i) that is not in G2. */
export function g2PointOutsideSubgroup(): Uint8Array {
  for (let c0 = 1n; ; c0++) {
    const x: Fp2 = Fp2.create({ c0, c1: 1n });
    const y = g2CurveY(x);
    if (y === undefined || bls12_381.G2.Point.fromAffine({ x, y }).isTorsionFree()) continue;
    return compressedG2X(x);
  }
}

/** A compressed G2 x (c1 = 1, lowest c0) whose x³ + 4(1+i) has no square root: decodes to no point. */
export function g2XNotOnCurve(): Uint8Array {
  for (let c0 = 1n; ; c0++) {
    const x: Fp2 = Fp2.create({ c0, c1: 1n });
    if (g2CurveY(x) === undefined) return compressedG2X(x);
  }
}

/** The lowest x whose x³ + 4 has no square root: a 48-byte value that decodes to no point. */
export function g1XNotOnCurve(): Uint8Array {
  for (let x = 1n; ; x++) {
    let y: bigint | undefined;
    try {
      y = Fp.sqrt(Fp.add(Fp.pow(x, 3n), 4n));
    } catch {
      y = undefined;
    }
    if (y !== undefined) continue;
    const bytes = numberToBytesBE(x, 48);
    bytes[0] = (bytes[0] as number) | 0x80;
    return bytes;
  }
}

/** Calls f, which must throw; returns the error. */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A compressed signature in the 192-byte uncompressed form our own signers send (blst's encoder). */
export const uncompressedOf = (compressed: Uint8Array): Uint8Array => blst.signatureUncompressed(blst.signatureFromBytes(compressed));

/** g2PointOutsideSubgroup() in the uncompressed form: decoded without the subgroup check, written out. */
export function g2PointOutsideSubgroupUncompressed(): Uint8Array {
  return blst.signatureUncompressed(blst.sumUncheckedSignatures([g2PointOutsideSubgroup()]).sum!);
}

/** A copy of `bytes` changed by `edit` (a flag set, a byte flipped). */
export function edited(bytes: Uint8Array, edit: (copy: Uint8Array) => void): Uint8Array {
  const copy = new Uint8Array(bytes);
  edit(copy);
  return copy;
}
