// Whom a collection asks, on its own against a scripted PeerSource: heaviest first, only the
// missing weight plus the hedge, a slice per turn of the event loop, one timer for every
// request's hedge delay and deadline, requests cancelled when it ends, and what a failed request
// counts as, whichever transport it came from.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FanOut } from '../../src/aggregator/fan-out.js';
import type { CollectionStats } from '../../src/aggregator/errors.js';
import type { AskDone, AskTicket, CancelWhy, PeerSource } from '../../src/aggregator/peer-source.js';
import { P2PRequestError } from '../../src/p2p/errors.js';
import { PeerRequestError } from '../../src/peers/errors.js';
import { testNetwork, type TestNetwork } from './helpers.js';

interface Asked {
  pkHex: string;
  timeoutMs: number;
  done: AskDone;
  /** Why its caller cancelled it, once it did. */
  cancelled: CancelWhy | undefined;
}

/** A PeerSource whose requests stay open until the test settles them. */
class ScriptedPeers implements PeerSource {
  readonly asked: Asked[] = [];
  /** Keys not connected; of those, the ones the transport is connecting. */
  readonly down = new Set<string>();
  readonly dialling = new Set<string>();
  isConnected(pkHex: string): boolean {
    return !this.down.has(pkHex);
  }
  connecting(pkHex: string): boolean {
    return this.dialling.has(pkHex);
  }
  penalize(): void {}
  ask(pkHex: string, _req: unknown, timeoutMs: number, done: AskDone): AskTicket {
    const a: Asked = { pkHex, timeoutMs, done, cancelled: undefined };
    this.asked.push(a);
    return {
      cancel: (why) => {
        a.cancelled ??= why;
      },
    };
  }
}

function stats(validators: number): CollectionStats {
  return { validators, notConnected: 0, notAsked: 0, asked: 0, answered: 0, refused: 0, notYet: 0, timedOut: 0, invalid: 0, failed: 0, fromCache: 0 };
}

function fanOut(net: TestNetwork, targetWeight: bigint, extraWeightPercent: number, timing = { requestTimeoutMs: 60_000, hedgeDelayMs: 60_000 }) {
  const peers = new ScriptedPeers();
  const events: string[] = [];
  const s = stats(net.set.validators.length);
  const f = new FanOut(
    {
      set: net.set,
      request: { message: new Uint8Array(1), justification: new Uint8Array() },
      alreadyHave: () => false,
      targetWeight,
      requestTimeoutMs: timing.requestTimeoutMs,
      deadlineAt: Date.now() + 60_000,
      options: { extraWeightPercent, hedgeDelayMs: timing.hedgeDelayMs },
    },
    peers,
    s,
    {
      signature: (i) => events.push(`signature ${net.set.validators[i]!.weight}`),
      noSignature: (r) => events.push(r),
      slow: () => events.push('slow'),
      later: () => events.push('later'),
    },
  );
  const weightOf = (pkHex: string): number => Number(net.byKey.get(pkHex)!.weight);
  return { f, peers, events, stats: s, weightOf };
}

const tick = () => new Promise((r) => setImmediate(r));

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('FanOut', () => {
  it('asks the heaviest first, only the missing weight plus the hedge, and nobody once the weight is in hand', () => {
    const net = testNetwork([10, 50, 20, 40, 30], 0, 'fan-out');
    const { f, peers, weightOf, stats: s } = fanOut(net, 60n, 20);
    // 60 + 20% of 150 = 90: 50 and 40.
    f.topUp({ weight: 0n, signers: 0 });
    expect(peers.asked.map((a) => weightOf(a.pkHex))).toEqual([50, 40]);
    // Enough on its way: nothing more.
    f.topUp({ weight: 0n, signers: 0 });
    expect(peers.asked).toHaveLength(2);
    expect(s.asked).toBe(2);
    // The target in hand asks nobody, whatever the hedge.
    const full = fanOut(net, 60n, 100);
    full.f.topUp({ weight: 60n, signers: 1 });
    expect(full.peers.asked).toEqual([]);
  });

  describe('validators being connected', () => {
    it('waits for them and asks each as soon as it connects; one the transport gives up on counts as not connected', async () => {
      const net = testNetwork([40, 30, 20, 10], 0, 'fan-out-connecting');
      const { f, peers, events, stats: s, weightOf } = fanOut(net, 100n, 0);
      const keys = net.set.validators.map((v) => v.publicKeyHex);
      for (const k of keys) {
        peers.down.add(k);
        peers.dialling.add(k);
      }
      f.topUp({ weight: 0n, signers: 0 });
      // Nobody asked, nobody counted yet, and more may come.
      expect(peers.asked).toEqual([]);
      expect(s.notConnected).toBe(0);
      expect(f.exhausted).toBe(false);
      const byWeight = (w: number) => keys.find((k) => weightOf(k) === w)!;
      peers.down.delete(byWeight(30));
      peers.dialling.delete(byWeight(30));
      await until('the collection to be told', () => events.includes('later'));
      f.topUp({ weight: 0n, signers: 0 });
      expect(peers.asked.map((a) => weightOf(a.pkHex))).toEqual([30]);
      // The dials to the others fail: not connected, and nothing more can come once 30 answers.
      for (const k of keys) peers.dialling.delete(k);
      await until('the failed dials to be counted', () => s.notConnected === 3);
      expect(f.exhausted).toBe(false);
      peers.asked[0]!.done(undefined, { kind: 'signature', signature: new Uint8Array(96) });
      expect(f.exhausted).toBe(true);
      expect(s).toMatchObject({ asked: 1, answered: 1, notConnected: 3 });
    });

    it('waits no longer than the request timeout, and never past the end', async () => {
      const net = testNetwork([10, 10], 0, 'fan-out-connecting-timeout');
      const { f, peers, stats: s } = fanOut(net, 20n, 0, { requestTimeoutMs: 50, hedgeDelayMs: 60_000 });
      const [a, b] = net.set.validators.map((v) => v.publicKeyHex);
      for (const k of [a!, b!]) {
        peers.down.add(k);
        peers.dialling.add(k);
      }
      f.topUp({ weight: 0n, signers: 0 });
      await until('the wait to be over', () => f.exhausted);
      expect(s.notConnected).toBe(2);
      expect(peers.asked).toEqual([]);
      // The deadline while waiting: those waited for count as not connected.
      const third = fanOut(net, 20n, 0);
      for (const k of [a!, b!]) {
        third.peers.down.add(k);
        third.peers.dialling.add(k);
      }
      third.f.topUp({ weight: 0n, signers: 0 });
      expect(third.f.expire()).toBe(0);
      third.f.countUnasked();
      expect(third.stats.notConnected).toBe(2);
      // Ended while waiting: the validator waited for counts as not connected, and nobody is asked later.
      const second = fanOut(net, 20n, 0);
      for (const k of [a!, b!]) {
        second.peers.down.add(k);
        second.peers.dialling.add(k);
      }
      second.f.topUp({ weight: 0n, signers: 0 });
      second.f.countUnasked();
      second.f.end();
      second.peers.down.clear();
      await new Promise((r) => setTimeout(r, 60));
      expect(second.stats.notConnected).toBe(2);
      expect(second.peers.asked).toEqual([]);
      expect(second.events).toEqual([]);
    });
  });

  it('sends 100 requests per turn of the event loop and says when more wait', () => {
    const net = testNetwork(Array.from({ length: 250 }, () => 1), 0, 'fan-out-wide');
    const { f, peers, events } = fanOut(net, 250n, 100);
    f.topUp({ weight: 0n, signers: 0 });
    expect(peers.asked).toHaveLength(100);
    expect(events).toEqual(['later']);
    f.topUp({ weight: 0n, signers: 0 });
    f.topUp({ weight: 0n, signers: 0 });
    expect(peers.asked).toHaveLength(250);
    expect(f.exhausted).toBe(false);
  });

  it('counts a timeout from either transport as a timeout, anything else as a failure', async () => {
    const net = testNetwork([10, 10, 10, 10], 0, 'fan-out-errors');
    const { f, peers, events, stats: s } = fanOut(net, 40n, 0);
    f.topUp({ weight: 0n, signers: 0 });
    peers.asked[0]!.done(new PeerRequestError('timeout', peers.asked[0]!.pkHex, 'no answer'), undefined);
    peers.asked[1]!.done(new P2PRequestError('timeout', 'NodeID-x', 'no answer'), undefined);
    peers.asked[2]!.done(new P2PRequestError('disconnected', 'NodeID-y', 'closed'), undefined);
    peers.asked[3]!.done(undefined, { kind: 'signature', signature: new Uint8Array(96) });
    expect(events).toEqual(['timeout', 'timeout', 'error', 'signature 10']);
    expect(s).toMatchObject({ asked: 4, answered: 1 });
    expect(f.exhausted).toBe(true);
  });

  it('at the deadline counts what is outstanding and cancels it as timed out; later answers count for nothing', async () => {
    const net = testNetwork(Array.from({ length: 40 }, () => 1), 0, 'fan-out-expire');
    const { f, peers, events } = fanOut(net, 40n, 0);
    f.topUp({ weight: 0n, signers: 0 });
    expect(f.expire()).toBe(40);
    expect(peers.asked.map((a) => a.cancelled)).toEqual(peers.asked.map(() => 'timeout'));
    // Settled by the deadline: what the peers answer afterwards is not counted again.
    peers.asked[0]!.done(undefined, { kind: 'signature', signature: new Uint8Array(96) });
    await tick();
    expect(events).toEqual([]);
    f.topUp({ weight: 0n, signers: 0 });
    expect(peers.asked).toHaveLength(40);
  });

  it('once ended, cancels what is outstanding only after the current turn (the answer goes first), as not needed', async () => {
    const net = testNetwork([5, 5], 0, 'fan-out-end');
    const { f, peers } = fanOut(net, 10n, 0);
    f.topUp({ weight: 0n, signers: 0 });
    f.end();
    expect(peers.asked.every((a) => a.cancelled === undefined)).toBe(true);
    await tick();
    expect(peers.asked.map((a) => a.cancelled)).toEqual(['cancelled', 'cancelled']);
  });

  describe('one timer for all its requests', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('keeps a single timer however many requests are out, hedges the unanswered and times them out in order', () => {
      vi.useFakeTimers();
      const net = testNetwork(Array.from({ length: 30 }, () => 1), 0, 'fan-out-timer');
      const { f, peers, events, stats: s } = fanOut(net, 10n, 0, { requestTimeoutMs: 1_000, hedgeDelayMs: 200 });
      f.topUp({ weight: 0n, signers: 0 });
      expect(peers.asked).toHaveLength(10);
      // Ten requests, each with a hedge delay and a deadline: one timer.
      expect(vi.getTimerCount()).toBe(1);
      // Five more asked 100 ms later (their weight stands in for answers that failed).
      vi.advanceTimersByTime(100);
      for (const a of peers.asked.slice(0, 5)) a.done(undefined, { kind: 'refused', reason: 'no' });
      f.topUp({ weight: 0n, signers: 0 });
      expect(peers.asked).toHaveLength(15);
      expect(vi.getTimerCount()).toBe(1);
      // At 200 ms the five still open from the first round turn slow (once), not the new ones.
      vi.advanceTimersByTime(100);
      expect(events.filter((e) => e === 'slow')).toHaveLength(1);
      f.topUp({ weight: 0n, signers: 0 });
      expect(peers.asked).toHaveLength(20);
      // At 1,000 ms the first round's open requests time out; the later ones have not yet.
      vi.advanceTimersByTime(800);
      expect(peers.asked.filter((a) => a.cancelled === 'timeout').map((a) => peers.asked.indexOf(a))).toEqual([5, 6, 7, 8, 9]);
      expect(s.asked).toBe(20);
      expect(events.filter((e) => e === 'timeout')).toHaveLength(5);
      expect(vi.getTimerCount()).toBe(1);
      // Everyone answers: nothing left to time, no timer.
      for (const a of peers.asked.filter((x) => x.cancelled === undefined)) a.done(undefined, { kind: 'signature', signature: new Uint8Array(96) });
      vi.advanceTimersByTime(2_000);
      expect(events.filter((e) => e === 'timeout')).toHaveLength(5);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('tells the transport how long each request may take: the request timeout, capped at the deadline', () => {
      vi.useFakeTimers();
      const net = testNetwork([3, 2, 1], 0, 'fan-out-timeouts');
      const { f, peers } = fanOut(net, 6n, 0, { requestTimeoutMs: 120_000, hedgeDelayMs: 200 });
      f.topUp({ weight: 0n, signers: 0 });
      expect(peers.asked.map((a) => a.timeoutMs)).toEqual([60_000, 60_000, 60_000]);
      // Ended: the hedge and deadline timer goes at once, the requests are cancelled a turn later.
      f.end();
      vi.runOnlyPendingTimers();
      expect(peers.asked.map((a) => a.cancelled)).toEqual(['cancelled', 'cancelled', 'cancelled']);
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
