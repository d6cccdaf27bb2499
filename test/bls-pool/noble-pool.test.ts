// The pool's optimistic path on the pure-JS backend (the fallback when blst cannot load): the
// same jobs, the same answers, a few signatures only (noble is ~30x slower).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlsPool } from '../../src/bls-pool/pool.js';
import { blst, g2PointOutsideSubgroup, g2XNotOnCurve } from '../bls/helpers.js';
import { outsideSubgroupPair, secretKey, subsetSide } from './helpers.js';

const msg = new TextEncoder().encode('noble pool');
const sks = Array.from({ length: 6 }, (_, i) => secretKey(`noble-pool-${i}`));
const pks = sks.map((sk) => blst.publicKeyOf(sk).bytes);
const good = sks.map((sk) => blst.sign(sk, msg).bytes);

const pool = new BlsPool({ backend: 'noble', threads: 1 });
beforeAll(() => pool.warm());
afterAll(() => pool.close());

describe('a noble pool', () => {
  it('folds without the subgroup check; the final check fails for a point outside it and bisection names it', async () => {
    const sigs = [...good];
    sigs[2] = g2PointOutsideSubgroup();
    sigs[4] = g2XNotOnCurve();
    const r = await pool.fold({ sigs, pks });
    expect(r.rejected).toEqual([4]);
    const done = await pool.finalCheck({ message: msg, parts: [r.partial!], signatures: () => ({ sigs: sigs.filter((_, i) => i !== 4), pks: pks.filter((_, i) => i !== 4) }) });
    expect(done).toMatchObject({ valid: false, invalid: [2] });
  });

  it('folds and checks in one task, and the subset that keeps one of a pair outside the subgroup fails', async () => {
    const sigs = [...good];
    [sigs[0], sigs[3]] = outsideSubgroupPair(sigs[0]!, sigs[3]!);
    const r = await pool.foldAndCheck({ sigs, pks, message: msg, subset: subsetSide({ sigs, pks }, [0, 1, 2]) });
    expect((await pool.finalize({ message: msg, parts: [r.partial!] })).valid).toBe(true);
    expect(r.check?.valid).toBe(false);
  });
});
