// Destination epochs kept per chain on a fake clock: until startTime + D less avalanchego's
// 10 s maxSkew, at least minRefreshMs (an idle chain's expired epoch, the zero epoch, an unknown
// D), one read in flight per chain, failures not kept, a bounded number of chains; and the
// height policy that uses them.
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { EpochCache, type ChainEpoch } from '../../src/validators/epoch-cache.js';
import { chooseSigningHeight, type SigningHeightReads } from '../../src/validators/signing-height.js';
import { MAX_CLOCK_SKEW_MS } from '../../src/validators/epoch.js';
import { bytesToHex } from '../../src/warp/hex.js';

const chain = (name: string): Uint8Array => sha256(new TextEncoder().encode(name));
const A = chain('a');
const B = chain('b');
const C = chain('c');
const D_MS = 300_000;
const START_S = 1_755_802_182;

/** A destination node: answers the epoch it is told to, counting reads; a read waits while held. */
class FakeDestinations {
  epochs = new Map<string, ChainEpoch>();
  reads: string[] = [];
  fail = false;
  durationMs: number | null = D_MS;
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  set(id: Uint8Array, epoch: ChainEpoch): void {
    this.epochs.set(bytesToHex(id), epoch);
  }

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  readonly readEpoch = async (id: Uint8Array, signal: AbortSignal): Promise<ChainEpoch> => {
    this.reads.push(bytesToHex(id));
    if (this.gate) {
      await new Promise<void>((resolve, reject) => {
        void this.gate!.then(resolve);
        signal.addEventListener('abort', () => reject(signal.reason as unknown), { once: true });
      });
    }
    if (this.fail) throw new Error('destination unreachable');
    return this.epochs.get(bytesToHex(id))!;
  };

  readonly epochDurationMs = async (): Promise<number | null> => this.durationMs;
}

function cacheOn(dest: FakeDestinations, clock: { now: number }, over: { minRefreshMs?: number; maxEntries?: number } = {}): EpochCache {
  return new EpochCache({ readEpoch: dest.readEpoch, epochDurationMs: dest.epochDurationMs, minRefreshMs: 1_000, maxEntries: 16, now: () => clock.now, ...over });
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('EpochCache', () => {
  it('keeps an epoch until startTime + D less the 10 s clock skew, then reads the next one', async () => {
    const dest = new FakeDestinations();
    const clock = { now: START_S * 1000 + 5_000 };
    const cache = cacheOn(dest, clock);
    dest.set(A, { number: 7, startTime: START_S, pChainHeight: 100 });
    expect(await cache.get(A)).toMatchObject({ pChainHeight: 100 });
    dest.set(A, { number: 8, startTime: START_S + 300, pChainHeight: 160 });
    clock.now = START_S * 1000 + D_MS - MAX_CLOCK_SKEW_MS - 1;
    expect(await cache.get(A)).toMatchObject({ pChainHeight: 100 });
    expect(dest.reads).toHaveLength(1);
    clock.now += 1;
    expect(await cache.get(A)).toMatchObject({ number: 8, pChainHeight: 160 });
    expect(dest.reads).toHaveLength(2);
  });

  it('an idle chain reporting its expired epoch is asked again only every minRefreshMs', async () => {
    const dest = new FakeDestinations();
    const clock = { now: START_S * 1000 + 3_600_000 };
    const cache = cacheOn(dest, clock, { minRefreshMs: 1_000 });
    dest.set(A, { number: 7, startTime: START_S, pChainHeight: 100 });
    for (let i = 0; i < 10; i++) {
      expect(await cache.get(A)).toMatchObject({ pChainHeight: 100 });
      clock.now += 99;
    }
    expect(dest.reads).toHaveLength(1);
    clock.now += 10;
    await cache.get(A);
    expect(dest.reads).toHaveLength(2);
  });

  it('the zero epoch (before Granite) and any epoch while D is unknown are kept minRefreshMs', async () => {
    const dest = new FakeDestinations();
    const clock = { now: START_S * 1000 };
    const cache = cacheOn(dest, clock, { minRefreshMs: 1_000 });
    dest.set(A, { number: 0, startTime: 0, pChainHeight: 0 });
    dest.set(B, { number: 7, startTime: START_S, pChainHeight: 100 });
    dest.durationMs = null;
    await cache.get(A);
    await cache.get(B);
    clock.now += 999;
    await cache.get(A);
    await cache.get(B);
    expect(dest.reads).toHaveLength(2);
    clock.now += 1;
    await cache.get(A);
    await cache.get(B);
    expect(dest.reads).toHaveLength(4);
  });

  it('one read in flight per chain, whoever asks', async () => {
    const dest = new FakeDestinations();
    const cache = cacheOn(dest, { now: START_S * 1000 });
    dest.set(A, { number: 7, startTime: START_S, pChainHeight: 100 });
    dest.set(B, { number: 3, startTime: START_S, pChainHeight: 90 });
    dest.hold();
    const pending = Promise.all([cache.get(A), cache.get(A), cache.get(B), cache.get(A)]);
    await turn();
    dest.release();
    expect((await pending).map((e) => e.pChainHeight)).toEqual([100, 100, 90, 100]);
    expect(dest.reads).toEqual([bytesToHex(A), bytesToHex(B)]);
  });

  it('a failed read is not kept; a caller leaves at its deadline and the read it started serves the next', async () => {
    const dest = new FakeDestinations();
    const cache = cacheOn(dest, { now: START_S * 1000 });
    dest.set(A, { number: 7, startTime: START_S, pChainHeight: 100 });
    dest.fail = true;
    await expect(cache.get(A)).rejects.toThrow('destination unreachable');
    dest.fail = false;
    dest.hold();
    const controller = new AbortController();
    const reason = new Error('deadline');
    const leaving = cache.get(A, { signal: controller.signal });
    await turn();
    controller.abort(reason);
    await expect(leaving).rejects.toBe(reason);
    dest.release();
    await turn();
    expect(await cache.get(A)).toMatchObject({ pChainHeight: 100 });
    expect(dest.reads).toHaveLength(2);
  });

  it('keeps at most maxEntries chains, the least recently asked forgotten first', async () => {
    const dest = new FakeDestinations();
    const cache = cacheOn(dest, { now: START_S * 1000 }, { maxEntries: 2 });
    for (const id of [A, B, C]) dest.set(id, { number: 1, startTime: START_S, pChainHeight: 1 });
    await cache.get(A);
    await cache.get(B);
    await cache.get(A);
    await cache.get(C);
    expect(dest.reads).toHaveLength(3);
    await cache.get(A);
    expect(dest.reads).toHaveLength(3);
    await cache.get(B);
    expect(dest.reads).toEqual([A, B, C, B].map(bytesToHex));
  });
});

describe('chooseSigningHeight', () => {
  const reads = (epoch: ChainEpoch): SigningHeightReads & { asked: string[] } => {
    const asked: string[] = [];
    return {
      asked,
      epochOf: async (id) => {
        asked.push(`epoch ${bytesToHex(id).slice(0, 4)}`);
        return epoch;
      },
      proposedHeight: async () => {
        asked.push('proposed');
        return 500;
      },
    };
  };
  const granite = { number: 9, startTime: START_S, pChainHeight: 420 };

  it('an explicit height wins and reads nothing', async () => {
    const r = reads(granite);
    expect(await chooseSigningHeight({ pChainHeight: 77, destinationChainId: A }, r)).toEqual({ height: 77, source: 'explicit' });
    expect(r.asked).toEqual([]);
  });

  it('with a destination, its epoch’s P-Chain height', async () => {
    const r = reads(granite);
    expect(await chooseSigningHeight({ pChainHeight: 0, destinationChainId: A }, r)).toEqual({ height: 420, source: 'epoch' });
    expect(r.asked).toEqual([`epoch ${bytesToHex(A).slice(0, 4)}`]);
  });

  it('without one, or with a destination before Granite (epoch 0), the proposed height', async () => {
    const none = reads(granite);
    expect(await chooseSigningHeight({ pChainHeight: 0 }, none)).toEqual({ height: 500, source: 'proposed' });
    expect(none.asked).toEqual(['proposed']);
    const preGranite = reads({ number: 0, startTime: 0, pChainHeight: 0 });
    expect(await chooseSigningHeight({ pChainHeight: 0, destinationChainId: A }, preGranite)).toEqual({ height: 500, source: 'proposed' });
  });

  it('a destination that cannot be read fails the choice: no fallback to another height', async () => {
    const failing: SigningHeightReads = { epochOf: () => Promise.reject(new Error('destination down')), proposedHeight: async () => 500 };
    await expect(chooseSigningHeight({ pChainHeight: 0, destinationChainId: A }, failing)).rejects.toThrow('destination down');
  });
});
