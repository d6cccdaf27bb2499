// Shared by the BLS pool tests and the aggregator tests that run on a real pool: reproducible
// secret keys, pairs of bad signatures that cancel out, and a real two-thread blst pool.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll } from 'vitest';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import type { SecretKey } from '../../src/bls/types.js';
import { BlsPool } from '../../src/bls-pool/pool.js';
import type { SignatureBatch } from '../../src/bls-pool/messages.js';
import type { FoldAndCheckRequest } from '../../src/bls-pool/verifier.js';
import type * as Blst from '@chainsafe/blst';
import { blst, g2PointOutsideSubgroup } from '../bls/helpers.js';

/** Threads of the pool useBlsPool() starts. */
export const POOL_THREADS = 2;

/** A reproducible secret key: sha256 of the label with the top bits cleared (below the group order). */
export function secretKey(label: string): SecretKey {
  const bytes = createHash('sha256').update(label).digest();
  bytes[0] = bytes[0]! & 0x3f;
  return blst.secretKeyFromBytes(bytes);
}

/** Two signatures that are each wrong but whose sum is the sum of the right ones. */
export function cancellingPair(a: Uint8Array, b: Uint8Array): [Uint8Array, Uint8Array] {
  const G2 = bls12_381.G2.Point;
  const offset = G2.fromBytes(blst.sign(secretKey('offset'), new TextEncoder().encode('offset')).bytes);
  return [G2.fromBytes(a).add(offset).toBytes(true), G2.fromBytes(b).subtract(offset).toBytes(true)];
}

/**
 * Two signatures that are each outside the G2 subgroup (each is a right one plus, or minus, the
 * same point outside it) but whose sum is the sum of the right ones. Made with the blst module
 * itself, not with the backend under test.
 */
export function outsideSubgroupPair(a: Uint8Array, b: Uint8Array): [Uint8Array, Uint8Array] {
  const native = createRequire(import.meta.url)('@chainsafe/blst') as typeof Blst;
  const outside = g2PointOutsideSubgroup();
  const sum = (x: Uint8Array, y: Uint8Array): Uint8Array => native.aggregateSerializedSignatures([x, y], false).toBytes(true);
  // −outside: the same x with the other root as y, flipped by the compressed encoding's sort flag.
  const negated = new Uint8Array(outside);
  negated[0] = negated[0]! ^ 0x20;
  return [sum(a, outside), sum(b, negated)];
}

/**
 * foldAndCheck's subset for the signatures at `positions` of `all` (every signature the fold's
 * result holds): the smaller side, as the verification sends it.
 */
export function subsetSide(all: SignatureBatch, positions: readonly number[]): FoldAndCheckRequest['subset'] {
  const kept = new Set(positions);
  const pick = (keep: (i: number) => boolean): SignatureBatch => ({ sigs: all.sigs.filter((_, i) => keep(i)), pks: all.pks.filter((_, i) => keep(i)) });
  return all.sigs.length - kept.size < kept.size ? { leftOut: pick((i) => !kept.has(i)) } : { kept: pick((i) => kept.has(i)) };
}

/** A real blst pool of POOL_THREADS threads for one test file: warmed before its tests, closed after them. */
export function useBlsPool(): BlsPool {
  const pool = new BlsPool({ backend: 'blst', threads: POOL_THREADS });
  beforeAll(() => pool.warm());
  afterAll(() => pool.close());
  return pool;
}
