// keepSubnetSetsCurrent on fake timers: the sets of readiness.subnets are read at start and every
// interval; a round that failed (the node down) is retried after 1 s, doubling up to the
// interval, so a node that comes back is read within seconds.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { keepSubnetSetsCurrent } from '../../src/service/peer-admission.js';
import type { ValidatorSets } from '../../src/aggregator/aggregator.js';
import type { CanonicalSet } from '../../src/validators/canonical-set.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('keepSubnetSetsCurrent', () => {
  it('reads every interval, retries a failed round after 1 s, 2 s, 4 s … up to the interval, and stops when told', async () => {
    vi.useFakeTimers();
    const readAt: number[] = [];
    let nodeUp = false;
    const sets: ValidatorSets = {
      get: () => {
        readAt.push(Date.now());
        return nodeUp ? Promise.resolve({} as CanonicalSet) : Promise.reject(new Error('node down'));
      },
      signingSubnetFor: () => Promise.reject(new Error('unused')),
      proposedHeight: () => Promise.reject(new Error('unused')),
    };
    const start = Date.now();
    const stop = keepSubnetSetsCurrent({ sets, subnets: [{ name: 'L1', id: new Uint8Array(32) }], intervalMs: 5_000, logger: pino({ level: 'silent' }) });
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000 + 5_000);
    expect(readAt.map((t) => t - start)).toEqual([0, 1_000, 3_000, 7_000, 12_000]);
    nodeUp = true;
    await vi.advanceTimersByTimeAsync(5_000);
    await vi.advanceTimersByTimeAsync(10_000);
    // Up again: back to the interval.
    expect(readAt.map((t) => t - start).slice(5)).toEqual([17_000, 22_000, 27_000]);
    nodeUp = false;
    await vi.advanceTimersByTimeAsync(5_000 + 1_000);
    expect(readAt.map((t) => t - start).slice(8)).toEqual([32_000, 33_000]);
    stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(readAt).toHaveLength(10);
  });
});
