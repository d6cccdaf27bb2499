// The lane handshake proof checks take to the worker threads: only onto an idle thread, a few at
// a time, in a queue of their own with a cap.
import { describe, expect, it } from 'vitest';
import { BackgroundLane } from '../../src/bls-pool/background-lane.js';

/** A fake worker pool with `threads` threads: tasks settle when the test says so. */
function fakePool(threads: number) {
  const running: { job: number; done(): void }[] = [];
  let busy = 0;
  const send = (job: number) => {
    busy++;
    return new Promise<number>((resolve) => {
      running.push({
        job,
        done: () => {
          busy--;
          resolve(job * 10);
        },
      });
    });
  };
  return { running, send, idle: () => busy < threads, occupy: () => void busy++, release: () => void busy-- };
}

const tick = () => new Promise((r) => setImmediate(r));
const full = () => new Error('full');

describe('BackgroundLane', () => {
  it('runs jobs only on idle threads, at most maxRunning at once, and the rest as threads free up', async () => {
    const pool = fakePool(3);
    const lane = new BackgroundLane(pool.send, pool.idle, 2, 100, full);
    const results = [1, 2, 3, 4].map((j) => lane.run(j));
    expect(pool.running.map((r) => r.job)).toEqual([1, 2]);
    expect(lane.queued).toBe(2);
    pool.running[0]!.done();
    await tick();
    expect(pool.running.map((r) => r.job)).toEqual([1, 2, 3]);
    pool.running[1]!.done();
    pool.running[2]!.done();
    await tick();
    pool.running[3]!.done();
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40]);
  });

  it('waits while aggregation work holds every thread, and goes when the pool pumps it after a thread frees', async () => {
    const pool = fakePool(2);
    pool.occupy();
    pool.occupy();
    const lane = new BackgroundLane(pool.send, pool.idle, 1, 100, full);
    const result = lane.run(7);
    lane.pump();
    expect(pool.running).toEqual([]);
    pool.release();
    lane.pump();
    expect(pool.running.map((r) => r.job)).toEqual([7]);
    pool.running[0]!.done();
    expect(await result).toBe(70);
  });

  it('refuses past its cap and rejects what waits when drained', async () => {
    const pool = fakePool(1);
    pool.occupy();
    const lane = new BackgroundLane(pool.send, pool.idle, 1, 2, full);
    const waiting = [lane.run(1), lane.run(2)];
    await expect(lane.run(3)).rejects.toThrow('full');
    lane.drain(() => new Error('closing'));
    for (const w of waiting) await expect(w).rejects.toThrow('closing');
    expect(lane.queued).toBe(0);
  });
});
