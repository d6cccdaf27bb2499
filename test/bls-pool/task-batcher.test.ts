// The batcher between aggregations and the worker threads: at once while a thread is free, all
// waiting jobs as one task when one frees up, and every job settled with its own outcome.
import { describe, expect, it } from 'vitest';
import { BlsJobError } from '../../src/bls-pool/errors.js';
import type { Outcome } from '../../src/bls-pool/messages.js';
import { TaskBatcher } from '../../src/bls-pool/task-batcher.js';

/** A fake worker pool: records each batch and settles it when the test says so. */
function fakePool() {
  const batches: { jobs: number[]; settle(outcomes: Outcome<number>[]): void; fail(err: Error): void }[] = [];
  const send = (jobs: number[]) =>
    new Promise<Outcome<number>[]>((resolve, reject) => {
      batches.push({ jobs, settle: resolve, fail: reject });
    });
  const double = (jobs: number[]): Outcome<number>[] => jobs.map((j) => ({ code: 'success', result: j * 2 }));
  return { batches, send, double };
}

const tick = () => new Promise((r) => setImmediate(r));
const full = () => new Error('the queue is full');

describe('TaskBatcher', () => {
  it('sends a job at once while a thread is free, and queues the rest into one batch per free thread', async () => {
    const pool = fakePool();
    const b = new TaskBatcher(pool.send, 2, 3, 100, full);
    const results = [1, 2, 3, 4, 5, 6, 7].map((j) => b.run(j));
    expect(pool.batches.map((x) => x.jobs)).toEqual([[1], [2]]);
    expect(b.queued).toBe(5);
    pool.batches[0]!.settle(pool.double(pool.batches[0]!.jobs));
    await tick();
    // The freed thread takes the waiting jobs together, at most maxJobs of them.
    expect(pool.batches.map((x) => x.jobs)).toEqual([[1], [2], [3, 4, 5]]);
    pool.batches[1]!.settle(pool.double(pool.batches[1]!.jobs));
    await tick();
    expect(pool.batches[3]!.jobs).toEqual([6, 7]);
    expect(b.queued).toBe(0);
    for (const batch of pool.batches.slice(2)) batch.settle(pool.double(batch.jobs));
    expect(await Promise.all(results)).toEqual([2, 4, 6, 8, 10, 12, 14]);
  });

  it('while work sent by others holds every thread, waits for pump() and then sends everything waiting as one batch', async () => {
    const pool = fakePool();
    let busyElsewhere = true;
    const b = new TaskBatcher(pool.send, 2, 16, 100, full, Date.now, () => !busyElsewhere);
    const results = [1, 2, 3, 4].map((j) => b.run(j));
    expect(pool.batches).toEqual([]);
    expect(b.queued).toBe(4);
    b.pump();
    expect(pool.batches).toEqual([]);
    busyElsewhere = false;
    b.pump();
    // One thread freed and jobs waited: they go out together, not one per job.
    expect(pool.batches.map((x) => x.jobs)).toEqual([[1, 2, 3, 4]]);
    pool.batches[0]!.settle(pool.double(pool.batches[0]!.jobs));
    expect(await Promise.all(results)).toEqual([2, 4, 6, 8]);
  });

  it('a job that fails in the worker rejects alone; its batch-mates resolve', async () => {
    const pool = fakePool();
    const b = new TaskBatcher(pool.send, 1, 8, 100, full);
    const first = b.run(0);
    const [a, bad, c] = [1, 2, 3].map((j) => b.run(j));
    pool.batches[0]!.settle(pool.double([0]));
    await first;
    await tick();
    expect(pool.batches[1]!.jobs).toEqual([1, 2, 3]);
    pool.batches[1]!.settle([
      { code: 'success', result: 10 },
      { code: 'error', error: 'no signatures to check' },
      { code: 'success', result: 30 },
    ]);
    expect(await a).toBe(10);
    expect(await c).toBe(30);
    const err = await bad!.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BlsJobError);
    expect((err as Error).message).toBe('no signatures to check');
  });

  it('a batch that fails as a whole rejects every job in it with that error, and the next batch still goes', async () => {
    const pool = fakePool();
    const b = new TaskBatcher(pool.send, 1, 8, 100, full);
    const doomed = [b.run(1)];
    const later = b.run(2);
    const closed = new Error('the pool is closed');
    pool.batches[0]!.fail(closed);
    expect(await doomed[0]!.catch((e: unknown) => e)).toBe(closed);
    await tick();
    pool.batches[1]!.settle(pool.double([2]));
    expect(await later).toBe(4);
  });

  it('a send that throws at once, or answers with the wrong number of outcomes, rejects its jobs', async () => {
    const throwing = new TaskBatcher<number, number>(() => {
      throw new Error('queue is at limit');
    }, 1, 8, 100, full);
    await expect(throwing.run(1)).rejects.toThrow('queue is at limit');
    await expect(throwing.run(2)).rejects.toThrow('queue is at limit');
    const short = new TaskBatcher<number, number>(async () => [], 1, 8, 100, full);
    await expect(short.run(1)).rejects.toBeInstanceOf(BlsJobError);
  });

  it('refuses a job while every thread is busy and maxQueued jobs already wait, and takes it again once there is room', async () => {
    const pool = fakePool();
    const b = new TaskBatcher(pool.send, 1, 8, 2, full);
    const running = b.run(1);
    const waiting = [b.run(2), b.run(3)];
    await expect(b.run(4)).rejects.toThrow('the queue is full');
    expect(b.queued).toBe(2);
    pool.batches[0]!.settle(pool.double([1]));
    expect(await running).toBe(2);
    await tick();
    expect(pool.batches[1]!.jobs).toEqual([2, 3]);
    const again = b.run(5);
    pool.batches[1]!.settle(pool.double([2, 3]));
    expect(await Promise.all(waiting)).toEqual([4, 6]);
    await tick();
    pool.batches[2]!.settle(pool.double([5]));
    expect(await again).toBe(10);
  });

  it('refuses a configuration that could never send', () => {
    expect(() => new TaskBatcher(async () => [], 0, 1, 1, full)).toThrow(RangeError);
    expect(() => new TaskBatcher(async () => [], 1, 0, 1, full)).toThrow(RangeError);
  });
});
