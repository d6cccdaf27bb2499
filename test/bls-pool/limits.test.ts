// What a caller of the BLS pool can rely on around its limits, each on a pool of its own: how many
// checks to keep in flight, a full queue (OverloadedError, never an unbounded backlog), a closed
// pool (and what a client is told for each), and the timings every job reports.
import { afterEach, describe, expect, it } from 'vitest';
import { BlsPool, type JobTiming } from '../../src/bls-pool/pool.js';
import { BlsPoolClosedError } from '../../src/bls-pool/errors.js';
import { OverloadedError } from '../../src/util/overloaded.js';
import { classifyError } from '../../src/server/errors.js';
import { blst } from '../bls/helpers.js';
import { secretKey } from './helpers.js';

const sks = Array.from({ length: 50 }, (_, i) => secretKey(`limits-${i}`));
const msg = new TextEncoder().encode('limits');
const pks = sks.map((sk) => blst.publicKeyOf(sk).bytes);
const sigs = sks.map((sk) => blst.sign(sk, msg).bytes);
/** A fold that holds a thread for a while: 1,000 signature checks. */
const heavy = { sigs: Array.from({ length: 1000 }, (_, i) => sigs[i % 50]!), pks: Array.from({ length: 1000 }, (_, i) => pks[i % 50]!) };

const pools: BlsPool[] = [];
function startPool(opts: Partial<ConstructorParameters<typeof BlsPool>[0]> = {}): BlsPool {
  const pool = new BlsPool({ backend: 'blst', threads: 2, ...opts });
  pools.push(pool);
  return pool;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('suggestedParallelism', () => {
  it('is one check per thread while the threads keep up, and one while jobs wait for a thread', async () => {
    const pool = startPool();
    await pool.warm();
    expect(pool.suggestedParallelism()).toBe(2);
    const folds = [pool.fold(heavy), pool.fold(heavy), pool.fold(heavy)];
    // Two run, the third waits to be batched.
    expect(pool.suggestedParallelism()).toBe(1);
    await Promise.all(folds);
    expect(pool.suggestedParallelism()).toBe(2);
  });
});

describe('a full queue', () => {
  it('refuses with an OverloadedError (retry in a second) while every thread is busy and maxQueue jobs wait, and takes work again after', async () => {
    const pool = startPool({ threads: 1, maxQueue: 2 });
    await pool.warm();
    const accepted = [pool.fold(heavy), pool.fold(heavy), pool.fold(heavy)];
    const err = await pool.fold(heavy).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OverloadedError);
    expect((err as OverloadedError).retryAfterSeconds).toBe(1);
    // What a client gets: 503, Retry-After, and no word about BLS queues.
    expect(classifyError(err)).toEqual({ status: 503, message: 'the service is overloaded; retry shortly', headers: { 'retry-after': '1' }, expected: true });
    for (const r of await Promise.all(accepted)) expect(r.rejected).toEqual([]);
    expect((await pool.fold(heavy)).rejected).toEqual([]);
  });
});

describe('a closed pool', () => {
  it('refuses new jobs of every kind with BlsPoolClosedError', async () => {
    const pool = startPool({ threads: 1 });
    await pool.warm();
    await pool.close();
    const err = await pool.fold(heavy).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlsPoolClosedError);
    expect(classifyError(err)).toEqual({ status: 503, message: 'the service is shutting down; retry shortly', headers: {}, expected: true });
    await expect(pool.aggregate(sigs.slice(0, 2))).rejects.toBeInstanceOf(BlsPoolClosedError);
    await expect(pool.verifyPossession({ publicKey: pks[0]!, message: msg, proof: sigs[0]!, dst: 'x' })).rejects.toBeInstanceOf(BlsPoolClosedError);
  });
});

describe('job timings', () => {
  it('every job reports its kind, the size of the task it ran in, and when it was added, started and finished', async () => {
    const timings: JobTiming[] = [];
    const pool = startPool({ threads: 1, events: { onJob: (t) => timings.push(t) } });
    await pool.warm();
    timings.length = 0;
    // One fold runs at once; the three after it wait and go out together as one task.
    await Promise.all([pool.fold(heavy), pool.fold(heavy), pool.fold(heavy), pool.fold(heavy)]);
    await pool.aggregate(sigs.slice(0, 3));
    expect(timings.map((t) => [t.kind, t.batchSize])).toEqual([
      ['fold', 1],
      ['fold', 3],
      ['fold', 3],
      ['fold', 3],
      ['aggregate', 1],
    ]);
    // added (main thread) and started/finished (the worker's clock) are each compared on their own thread.
    for (const t of timings) expect(t.finishedAt).toBeGreaterThanOrEqual(t.startedAt);
    expect(timings.map((t) => t.addedAt)).toEqual([...timings.map((t) => t.addedAt)].sort((a, b) => a - b));
    // The batched three waited for the first to finish.
    expect(timings[1]!.startedAt).toBeGreaterThanOrEqual(timings[0]!.finishedAt);
  });
});
