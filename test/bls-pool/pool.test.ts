// The BLS pool's jobs through the real pool and its worker threads: the fold (decompression and
// sum; the subgroup check is the final check's) and its rejections, the final check over running sums, bisection and the final check's
// fall-back to it, folds batched across aggregations, proof checks that yield, and memory.
import { describe, expect, it } from 'vitest';
import { authMessage, PEER_AUTH_DST } from '../../src/peers/auth.js';
import type { SecretKey } from '../../src/bls/types.js';
import { BlsJobError } from '../../src/bls-pool/errors.js';
import { BlsPool, type JobTiming } from '../../src/bls-pool/pool.js';
import { blst, g2PointOutsideSubgroup, g2PointOutsideSubgroupUncompressed, g2XNotOnCurve, uncompressedOf } from '../bls/helpers.js';
import { cancellingPair, outsideSubgroupPair, POOL_THREADS, secretKey, subsetSide, useBlsPool } from './helpers.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const sks = Array.from({ length: 256 }, (_, i) => secretKey(`workers-${i}`));
const sign = (sk: SecretKey, bytes: Uint8Array): Uint8Array => blst.sign(sk, bytes).bytes;
const msg = text('worker tasks');
const pks = sks.map((sk) => blst.publicKeyOf(sk).bytes);
const good = sks.map((sk) => sign(sk, msg));

const pool = useBlsPool();

describe('fold and finalize', () => {
  it('folds batches into running aggregates whose final check passes and whose sum is the plain aggregate', async () => {
    const a = await pool.fold({ sigs: good.slice(0, 10), pks: pks.slice(0, 10) });
    const b = await pool.fold({ sigs: good.slice(10, 30), pks: pks.slice(10, 30), base: [a.partial!] });
    expect(a.rejected).toEqual([]);
    const done = await pool.finalize({ message: msg, parts: [b.partial!] });
    expect(done.valid).toBe(true);
    const plain = blst.aggregateSignatures(good.slice(0, 30).map((s) => blst.signatureFromBytes(s))).bytes;
    expect(Buffer.from(done.signature).equals(Buffer.from(plain))).toBe(true);
  });

  it('rejects garbage, a point not on the curve, infinity and wrong lengths by index, and folds the rest', async () => {
    const infinity = new Uint8Array(96);
    infinity[0] = 0xc0;
    const sigs = [good[0]!, g2XNotOnCurve(), good[2]!, new Uint8Array(96).fill(0xab), infinity, good[5]!.subarray(0, 95), good[6]!];
    const r = await pool.fold({ sigs, pks: pks.slice(0, 7) });
    expect(r.rejected).toEqual([1, 3, 4, 5]);
    expect((await pool.finalize({ message: msg, parts: [r.partial!] })).valid).toBe(true);
  });

  it('folds a point outside the subgroup (only the aggregate is checked for it): the final check fails and bisection names it', async () => {
    const sigs = [...good.slice(0, 8)];
    sigs[3] = g2PointOutsideSubgroup();
    const r = await pool.fold({ sigs, pks: pks.slice(0, 8) });
    expect(r.rejected).toEqual([]);
    expect((await pool.finalize({ message: msg, parts: [r.partial!] })).valid).toBe(false);
    const done = await pool.finalCheck({ message: msg, parts: [r.partial!], signatures: () => ({ sigs, pks: pks.slice(0, 8) }) });
    expect(done.valid).toBe(false);
    if (done.valid) return;
    expect(done.invalid).toEqual([3]);
    expect((await pool.finalize({ message: msg, parts: [done.rest!] })).valid).toBe(true);
  });

  it('folds the uncompressed form our own signers send beside the compressed one: same sum; the bad ones rejected or named by bisection, in either form', async () => {
    const mixed = good.slice(0, 8).map((s, i) => (i % 2 === 0 ? uncompressedOf(s) : s));
    const plain = await pool.fold({ sigs: good.slice(0, 8), pks: pks.slice(0, 8) });
    const r = await pool.fold({ sigs: mixed, pks: pks.slice(0, 8) });
    expect(r.rejected).toEqual([]);
    expect(r.partial).toEqual(plain.partial);
    // Off the curve (an uncompressed y changed), and a 192-byte one flagged compressed: rejected where they stand.
    const offCurve = uncompressedOf(good[1]!);
    offCurve[191] = offCurve[191]! ^ 1;
    const flagged = uncompressedOf(good[3]!);
    flagged[0] = flagged[0]! | 0x80;
    const outside = g2PointOutsideSubgroupUncompressed();
    const wrongMessage = uncompressedOf(sign(sks[6]!, text('not this')));
    const sigs = [mixed[0]!, offCurve, mixed[2]!, flagged, outside, mixed[5]!, wrongMessage, mixed[7]!];
    const folded = await pool.fold({ sigs, pks: pks.slice(0, 8) });
    expect(folded.rejected).toEqual([1, 3]);
    const kept = [0, 2, 4, 5, 6, 7];
    const done = await pool.finalCheck({ message: msg, parts: [folded.partial!], signatures: () => ({ sigs: kept.map((i) => sigs[i]!), pks: kept.map((i) => pks[i]!) }) });
    expect(done.valid).toBe(false);
    if (done.valid) return;
    // Positions among the kept: the point outside the subgroup (4) and the wrong message (6).
    expect(done.invalid).toEqual([2, 4]);
    expect((await pool.finalize({ message: msg, parts: [done.rest!] })).valid).toBe(true);
  });

  it('a batch with nothing usable and no base gives no aggregate', async () => {
    const r = await pool.fold({ sigs: [g2XNotOnCurve()], pks: [pks[0]!] });
    expect(r).toEqual({ partial: null, rejected: [0] });
  });

  it('the final check fails for a signature over another message or by another key', async () => {
    const wrong = [...good.slice(0, 8)];
    wrong[3] = sign(sks[3]!, text('another'));
    const r1 = await pool.fold({ sigs: wrong, pks: pks.slice(0, 8) });
    expect((await pool.finalize({ message: msg, parts: [r1.partial!] })).valid).toBe(false);
    const swapped = [...good.slice(0, 8)];
    swapped[4] = good[9]!;
    const r2 = await pool.fold({ sigs: swapped, pks: pks.slice(0, 8) });
    expect((await pool.finalize({ message: msg, parts: [r2.partial!] })).valid).toBe(false);
  });

  it('merges many running sums, in any grouping, into the same aggregate', async () => {
    const parts = await Promise.all([0, 8, 16, 24].map((at) => pool.fold({ sigs: good.slice(at, at + 8), pks: pks.slice(at, at + 8) })));
    const merged = await pool.fold({ sigs: [], pks: [], base: parts.slice(0, 2).map((p) => p.partial!) });
    const done = await pool.finalize({ message: msg, parts: [merged.partial!, parts[2]!.partial!, parts[3]!.partial!] });
    expect(done.valid).toBe(true);
    const plain = blst.aggregateSignatures(good.slice(0, 32).map((s) => blst.signatureFromBytes(s))).bytes;
    expect(Buffer.from(done.signature).equals(Buffer.from(plain))).toBe(true);
  });

  it('a cancelling pair passes the aggregate check (its sum is a valid signature by both keys); bisection still names both', async () => {
    const pair = [...good.slice(0, 8)];
    [pair[2], pair[5]] = cancellingPair(good[2]!, good[5]!);
    const r = await pool.fold({ sigs: pair, pks: pks.slice(0, 8) });
    const done = await pool.finalize({ message: msg, parts: [r.partial!] });
    expect(done.valid).toBe(true);
    const plain = blst.aggregateSignatures(good.slice(0, 8).map((s) => blst.signatureFromBytes(s))).bytes;
    expect(Buffer.from(done.signature).equals(Buffer.from(plain))).toBe(true);
    expect(await pool.findInvalid({ message: msg, sigs: pair, pks: pks.slice(0, 8) })).toEqual([2, 5]);
  });

  it('two points outside the subgroup that sum to one inside it pass the aggregate check (their sum is the valid signature by both keys); bisection still names both', async () => {
    const pair = [...good.slice(0, 8)];
    [pair[2], pair[5]] = outsideSubgroupPair(good[2]!, good[5]!);
    const r = await pool.fold({ sigs: pair, pks: pks.slice(0, 8) });
    expect(r.rejected).toEqual([]);
    const done = await pool.finalize({ message: msg, parts: [r.partial!] });
    expect(done.valid).toBe(true);
    const plain = blst.aggregateSignatures(good.slice(0, 8).map((s) => blst.signatureFromBytes(s))).bytes;
    expect(Buffer.from(done.signature).equals(Buffer.from(plain))).toBe(true);
    expect(await pool.findInvalid({ message: msg, sigs: pair, pks: pks.slice(0, 8) })).toEqual([2, 5]);
  });
});

describe('fold and check in one task', () => {
  it('folds and checks the subset’s aggregate alone; the sums are the same as the separate jobs’', async () => {
    const base = await pool.fold({ sigs: good.slice(0, 4), pks: pks.slice(0, 4) });
    const all = { sigs: good.slice(0, 12), pks: pks.slice(0, 12) };
    const expected = (list: number[]): string => Buffer.from(blst.aggregateSignatures(list.map((i) => blst.signatureFromBytes(good[i]!))).bytes).toString('hex');
    // 10 of 12 (the two others taken away from the result) and 3 of 12 (added up).
    for (const positions of [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [2, 5, 11]]) {
      const r = await pool.foldAndCheck({ sigs: good.slice(4, 12), pks: pks.slice(4, 12), base: [base.partial!], message: msg, subset: subsetSide(all, positions) });
      expect(r.rejected).toEqual([]);
      // With a subset asked for, the whole result is not checked: only the subset goes into a message.
      expect(r.check?.valid).toBe(true);
      expect(Buffer.from(r.check!.signature).toString('hex')).toBe(expected(positions));
      expect(Buffer.from(r.check!.signature).toString('hex')).not.toBe(expected(Array.from({ length: 12 }, (_, i) => i)));
      expect((await pool.finalize({ message: msg, parts: [r.partial!] })).valid).toBe(true);
    }
  });

  it('checks the whole result when no subset is asked for; a bad signature outside the subset goes unseen; no check when a signature was rejected', async () => {
    const wrong = good.slice(0, 6);
    wrong[2] = sign(sks[2]!, text('another'));
    const sumOf = (list: Uint8Array[]): string => Buffer.from(blst.aggregateSignatures(list.map((s) => blst.signatureFromBytes(s))).bytes).toString('hex');
    const whole = await pool.foldAndCheck({ sigs: wrong, pks: pks.slice(0, 6), message: msg });
    expect(whole.check?.valid).toBe(false);
    expect(Buffer.from(whole.check!.signature).toString('hex')).toBe(sumOf(wrong));
    const outside = await pool.foldAndCheck({ sigs: wrong, pks: pks.slice(0, 6), message: msg, subset: subsetSide({ sigs: wrong, pks: pks.slice(0, 6) }, [0, 1]) });
    expect(outside.check?.valid).toBe(true);
    expect(Buffer.from(outside.check!.signature).toString('hex')).toBe(sumOf(wrong.slice(0, 2)));
    const inside = await pool.foldAndCheck({ sigs: wrong, pks: pks.slice(0, 6), message: msg, subset: subsetSide({ sigs: wrong, pks: pks.slice(0, 6) }, [1, 2]) });
    expect(inside.check?.valid).toBe(false);
    const garbled = good.slice(0, 6);
    garbled[4] = g2XNotOnCurve();
    const rejected = await pool.foldAndCheck({ sigs: garbled, pks: pks.slice(0, 6), message: msg });
    expect(rejected.rejected).toEqual([4]);
    expect(rejected.check).toBeNull();
    expect((await pool.finalize({ message: msg, parts: [rejected.partial!] })).valid).toBe(true);
  });

  for (const [name, pairOf] of [
    ['two points outside the subgroup whose sum is inside it', outsideSubgroupPair],
    ['two bad signatures that cancel out', cancellingPair],
  ] as const) {
    // The whole sum would pass (pool.finalize says so); the subset, all that is checked, does not.
    for (const positions of [[0, 1, 2, 3, 4, 5], [0, 1, 2]]) {
      it(`fails the subset check that keeps one of ${name} (subset of ${positions.length})`, async () => {
        const sigs = good.slice(0, 8);
        [sigs[1], sigs[6]] = pairOf(sigs[1]!, sigs[6]!);
        const r = await pool.foldAndCheck({ sigs, pks: pks.slice(0, 8), message: msg, subset: subsetSide({ sigs, pks: pks.slice(0, 8) }, positions) });
        expect((await pool.finalize({ message: msg, parts: [r.partial!] })).valid).toBe(true);
        expect(r.check?.valid).toBe(false);
      });
    }
  }
});

describe('folds from many aggregations at once', () => {
  it('are batched into shared tasks and each caller gets its own running sum', async () => {
    // 40 concurrent folds of 6 signatures each: more than two threads take at once, so most
    // wait in the batcher and go out together.
    const folds = await Promise.all(
      Array.from({ length: 40 }, (_, k) => {
        const at = (k * 6) % 240;
        const sigs = good.slice(at, at + 6);
        if (k % 5 === 0) sigs[1] = g2XNotOnCurve();
        return pool.fold({ sigs, pks: pks.slice(at, at + 6) }).then((r) => ({ r, at, k }));
      }),
    );
    for (const { r, at, k } of folds) {
      expect(r.rejected).toEqual(k % 5 === 0 ? [1] : []);
      const done = await pool.finalize({ message: msg, parts: [r.partial!] });
      expect(done.valid).toBe(true);
      const used = good.slice(at, at + 6).filter((_, i) => !(k % 5 === 0 && i === 1));
      const plain = blst.aggregateSignatures(used.map((s) => blst.signatureFromBytes(s))).bytes;
      expect(Buffer.from(done.signature).equals(Buffer.from(plain))).toBe(true);
    }
  });
});

/** A pool of its own that records every job's timing (its task's size), closed after `body`. */
async function withTimedPool(body: (pool: BlsPool, timings: JobTiming[]) => Promise<void>): Promise<void> {
  const timings: JobTiming[] = [];
  const timed = new BlsPool({ backend: 'blst', threads: POOL_THREADS, events: { onJob: (t) => timings.push(t) } });
  try {
    await timed.warm();
    await body(timed, timings);
  } finally {
    await timed.close();
  }
}

describe('fold-and-checks from many aggregations at once', () => {
  it('that wait for a thread are checked together; each gets its own answer, and a bad one fails alone', () =>
    withTimedPool(async (batching, timings) => {
      // 24 aggregations of 6 signers each, each over its own message: two take the threads at
      // once, the rest wait for them and go out together.
      const cases = Array.from({ length: 24 }, (_, k) => {
        const message = text(`aggregation ${k}`);
        const at = (k * 6) % 240;
        const sigs = sks.slice(at, at + 6).map((sk) => sign(sk, message));
        const kind = k % 6 === 1 ? 'wrong message' : k % 6 === 3 ? 'not on the curve' : k % 6 === 5 ? 'subset keeps one outside the subgroup' : 'good';
        if (kind === 'wrong message') sigs[2] = sign(sks[at + 2]!, text('another'));
        if (kind === 'not on the curve') sigs[4] = g2XNotOnCurve();
        if (kind === 'subset keeps one outside the subgroup') [sigs[1], sigs[5]] = outsideSubgroupPair(sigs[1]!, sigs[5]!);
        const batch = { sigs, pks: pks.slice(at, at + 6) };
        return { kind, message, sigs, request: { ...batch, message, ...(kind === 'subset keeps one outside the subgroup' ? { subset: subsetSide(batch, [0, 1, 2]) } : {}) } };
      });
      const results = await Promise.all(cases.map((c) => batching.foldAndCheck(c.request)));
      results.forEach((r, k) => {
        const { kind, sigs } = cases[k]!;
        if (kind === 'not on the curve') {
          expect(r.rejected).toEqual([4]);
          expect(r.check).toBeNull();
          return;
        }
        expect(r.rejected).toEqual([]);
        expect(r.check?.valid).toBe(kind === 'good');
        const summed = kind === 'subset keeps one outside the subgroup' ? sigs.slice(0, 3) : sigs;
        expect(Buffer.from(r.check!.signature).toString('hex')).toBe(Buffer.from(blst.sumUncheckedSignatures(summed).sum!.bytes).toString('hex'));
      });
      const sizes = timings.filter((t) => t.kind === 'foldAndCheck').map((t) => t.batchSize);
      expect(sizes).toHaveLength(24);
      expect(Math.max(...sizes)).toBeGreaterThan(1);
    }));
});

describe('finalize and subset checks from many aggregations at once', () => {
  it('wait for a thread with the fold-and-checks and are checked together; a bad one fails alone and goes on to bisection', () =>
    withTimedPool(async (batching, timings) => {
      const aggregations = await Promise.all(
        Array.from({ length: 12 }, async (_, k) => {
          const message = text(`finalize ${k}`);
          const at = k * 8;
          const sigs = sks.slice(at, at + 8).map((sk) => sign(sk, message));
          if (k % 4 === 2) sigs[3] = sign(sks[at + 3]!, text('another'));
          const batch = { sigs, pks: pks.slice(at, at + 8) };
          const { partial } = await batching.fold(batch);
          return { k, message, batch, parts: [partial!] };
        }),
      );
      timings.length = 0;
      const checks = await Promise.all(
        aggregations.map(({ k, message, batch, parts }) =>
          k % 2 === 0
            ? batching.finalCheck({ message, parts, signatures: () => batch })
            : // The fewest signers: 2 of 8 added up, or 7 of 8 with one taken away from the sum.
              batching.subsetCheck({ message, parts, signatures: () => batch, subset: k % 4 === 1 ? [0, 5] : [0, 1, 2, 3, 4, 5, 6] }),
        ),
      );
      checks.forEach((check, k) => {
        if (k % 4 === 2) expect(check).toMatchObject({ valid: false, invalid: [3] });
        else expect(check.valid).toBe(true);
      });
      const sizes = timings.filter((t) => t.kind === 'foldAndCheck').map((t) => t.batchSize);
      expect(Math.max(...sizes)).toBeGreaterThan(1);
    }));
});

describe('a final check', () => {
  it('never waits behind folds that wait for a thread: it takes the first thread free', async () => {
    const { partial } = await pool.fold({ sigs: good.slice(0, 8), pks: pks.slice(0, 8) });
    const order: string[] = [];
    // Far more folds than threads: the first ones take the threads, the rest wait in the batcher.
    const folds = Array.from({ length: 40 }, () => pool.fold({ sigs: good.slice(0, 64), pks: pks.slice(0, 64) }).then(() => order.push('fold')));
    const finalized = pool.finalize({ message: msg, parts: [partial!] }).then((r) => {
      order.push('finalize');
      return r;
    });
    await Promise.all([...folds, finalized]);
    expect((await finalized).valid).toBe(true);
    // At most the folds already running when it came finished before it.
    expect(order.indexOf('finalize')).toBeLessThanOrEqual(POOL_THREADS);
  });
});

// Anyone who opens /v1/peers can ask for a handshake proof check (~40 ms of pure-JS pairing).
// Queued FIFO with aggregation tasks, 40 of them delayed a finalize by 777 ms (issue 12).
describe('handshake proof checks', () => {
  it('never go ahead of a finalize: it runs on the thread they leave free, while they still wait', async () => {
    const folded = await pool.fold({ sigs: good.slice(0, 8), pks: pks.slice(0, 8) });
    // Real proofs, so each check costs the full pairing: every other one for the wrong challenge.
    const challenge = new Uint8Array(32).fill(5);
    const proofs = sks.slice(0, 40).map((sk, i) => ({
      publicKey: pks[i]!,
      message: authMessage(challenge),
      proof: blst.signWithDst(sk, authMessage(i % 2 === 0 ? challenge : new Uint8Array(32)), PEER_AUTH_DST).bytes,
      dst: PEER_AUTH_DST,
    }));
    const order: string[] = [];
    const checks = proofs.map((task) =>
      pool.verifyPossession(task).then((valid) => {
        order.push('proof');
        return valid;
      }),
    );
    const finalized = pool.finalize({ message: msg, parts: [folded.partial!] }).then((r) => {
      order.push('finalize');
      return r;
    });
    expect((await finalized).valid).toBe(true);
    // One proof check at most was already running on the other thread when the finalize came.
    expect(order.indexOf('finalize')).toBeLessThanOrEqual(POOL_THREADS - 1);
    // The checks still all run, and decide correctly.
    expect(await Promise.all(checks)).toEqual(proofs.map((_, i) => i % 2 === 0));
    expect(pool.backlog).toBe(0);
  }, 60_000);
});

describe('bisection', () => {
  it('finds exactly the bad signatures in a batch of 256', async () => {
    const sigs = [...good];
    const bad = [0, 3, 77, 78, 128, 200, 255];
    bad.forEach((i, k) => {
      sigs[i] = k % 3 === 0 ? sign(sks[i]!, text('other')) : k % 3 === 1 ? sign(sks[(i + 1) % 256]!, msg) : new Uint8Array(96).fill(7);
    });
    expect(await pool.findInvalid({ message: msg, sigs, pks })).toEqual(bad);
  });

  it('finds nothing in an all-good batch and everything in an all-bad one', async () => {
    expect(await pool.findInvalid({ message: msg, sigs: good.slice(0, 32), pks: pks.slice(0, 32) })).toEqual([]);
    const other = text('x');
    const allBad = sks.slice(0, 5).map((sk) => sign(sk, other));
    expect(await pool.findInvalid({ message: msg, sigs: allBad, pks: pks.slice(0, 5) })).toEqual([0, 1, 2, 3, 4]);
  });
});

// Native BLS objects (@chainsafe/blst) are freed by finalizers that run on a turn of the owning
// thread's event loop. Piscina's default `atomics: 'sync'` parks an idle worker in Atomics.wait
// without turning its loop, so those finalizers never ran and every checked signature leaked
// ~0.5–1 KB (measured: +57–75 MB over 120,000 checks, and a 2,000-validator benchmark's resident
// memory never levelled off). Vitest runs each file in its own process, so this file's RSS is
// this pool's.
describe('memory', () => {
  const fifty = good.slice(0, 50);
  // 2,000 signature checks per fold (the same 50 repeated: the worker parses each one anew).
  const big = { sigs: Array.from({ length: 2000 }, (_, i) => fifty[i % 50]!), pks: Array.from({ length: 2000 }, (_, i) => pks[i % 50]!) };

  it('frees the native memory of checked signatures: resident memory stays flat over 60,000 checks', async () => {
    // Warm-up: the workers' heaps and code settle first.
    for (let i = 0; i < 5; i++) await Promise.all([pool.fold(big), pool.fold(big)]);
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 15; i++) {
      const [a, b] = await Promise.all([pool.fold(big), pool.fold(big)]);
      expect(a.rejected).toEqual([]);
      expect(b.rejected).toEqual([]);
    }
    const growthMb = (process.memoryUsage().rss - before) / 2 ** 20;
    // Leaking, this grew by ~30 MB; freed, it moves by a few MB either way.
    expect(growthMb).toBeLessThan(12);
  }, 60_000);
});

describe('the final check', () => {
  it('passes on the running sum of good signatures without asking for the signatures again', async () => {
    const r = await pool.fold({ sigs: good.slice(0, 16), pks: pks.slice(0, 16) });
    let asked = 0;
    const done = await pool.finalCheck({
      message: msg,
      parts: [r.partial!],
      signatures: () => {
        asked++;
        return { sigs: good.slice(0, 16), pks: pks.slice(0, 16) };
      },
    });
    expect(done).toEqual({ valid: true, signature: blst.aggregateSignatures(good.slice(0, 16).map((s) => blst.signatureFromBytes(s))).bytes });
    expect(asked).toBe(0);
  });

  it('falls back to bisection when the pairing fails: names the bad ones and folds the rest into a sum that passes', async () => {
    const sigs = good.slice(0, 20);
    sigs[4] = sign(sks[4]!, text('not this'));
    sigs[17] = good[18]!;
    const r = await pool.fold({ sigs, pks: pks.slice(0, 20) });
    const done = await pool.finalCheck({ message: msg, parts: [r.partial!], signatures: () => ({ sigs, pks: pks.slice(0, 20) }) });
    expect(done.valid).toBe(false);
    if (done.valid) return;
    expect(done.invalid).toEqual([4, 17]);
    const rest = await pool.finalize({ message: msg, parts: [done.rest!] });
    expect(rest.valid).toBe(true);
    const expected = blst.aggregateSignatures(good.slice(0, 20).filter((_, i) => i !== 4 && i !== 17).map((s) => blst.signatureFromBytes(s))).bytes;
    expect(Buffer.from(rest.signature).equals(Buffer.from(expected))).toBe(true);
  });

  it('leaves no sum when every signature was bad', async () => {
    const sigs = sks.slice(0, 3).map((sk) => sign(sk, text('elsewhere')));
    const r = await pool.fold({ sigs, pks: pks.slice(0, 3) });
    expect(await pool.finalCheck({ message: msg, parts: [r.partial!], signatures: () => ({ sigs, pks: pks.slice(0, 3) }) })).toEqual({
      valid: false,
      invalid: [0, 1, 2],
      rest: null,
    });
  });
});

describe('a job that throws in the worker', () => {
  it('fails alone with what it threw; the thread goes on with the next job', async () => {
    const err = await pool.finalize({ message: msg, parts: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlsJobError);
    expect((err as Error).message).toBe('finalize: no signatures to check');
    const r = await pool.fold({ sigs: good.slice(0, 2), pks: pks.slice(0, 2) });
    expect((await pool.finalize({ message: msg, parts: [r.partial!] })).valid).toBe(true);
  });
});

describe('the subset check', () => {
  const subsetOf = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

  it('passes for a subset of good signatures, whether it adds the subset or removes the rest, and returns the subset’s aggregate', async () => {
    const sigs = good.slice(0, 12);
    const r = await pool.fold({ sigs, pks: pks.slice(0, 12) });
    const expected = (subset: number[]): string => Buffer.from(blst.aggregateSignatures(subset.map((i) => blst.signatureFromBytes(sigs[i]!))).bytes).toString('hex');
    // 10 of 12: the two others are removed from the sums; 3 of 12: the three are added up.
    for (const subset of [subsetOf(10), [2, 5, 11]]) {
      const done = await pool.subsetCheck({ message: msg, parts: [r.partial!], signatures: () => ({ sigs, pks: pks.slice(0, 12) }), subset });
      expect(done.valid).toBe(true);
      if (done.valid) expect(Buffer.from(done.signature).toString('hex')).toBe(expected(subset));
    }
  });

  it.each([
    ['two bad signatures that cancel out', cancellingPair],
    ['two points outside the subgroup whose sum is inside it', outsideSubgroupPair],
  ])('fails for a subset holding one of %s, and bisection names both', async (_, pair) => {
    const sigs = good.slice(0, 12);
    [sigs[1], sigs[9]] = pair(sigs[1]!, sigs[9]!);
    const r = await pool.fold({ sigs, pks: pks.slice(0, 12) });
    // Folding only decompresses and sums: neither is rejected there.
    expect(r.rejected).toEqual([]);
    // The aggregate of all twelve passes: the two sum to what the two right signatures sum to.
    expect((await pool.finalize({ message: msg, parts: [r.partial!] })).valid).toBe(true);
    // 9 of 12 removes 9 (the subset keeps 1), [0, 1, 2] adds 1 up: either way the subset's aggregate is wrong.
    for (const subset of [subsetOf(9), [0, 1, 2]]) {
      const done = await pool.subsetCheck({ message: msg, parts: [r.partial!], signatures: () => ({ sigs, pks: pks.slice(0, 12) }), subset });
      expect(done.valid).toBe(false);
      if (done.valid) return;
      expect(done.invalid).toEqual([1, 9]);
      expect((await pool.finalize({ message: msg, parts: [done.rest!] })).valid).toBe(true);
    }
  });
});
