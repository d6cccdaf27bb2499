// Whom a collection asks, on its own against a scripted PeerSource: heaviest first, only the
// missing weight plus the hedge, a slice per turn of the event loop, requests cancelled in
// groups, and what a failed request counts as, whichever transport it came from.
import { describe, expect, it } from 'vitest';
import { FanOut } from '../../src/aggregator/fan-out.js';
import type { CollectionStats } from '../../src/aggregator/errors.js';
import { REQUEST_CANCELLED, type PeerAnswer, type PeerSource } from '../../src/aggregator/peer-source.js';
import { P2PRequestError } from '../../src/p2p/errors.js';
import { PeerRequestError } from '../../src/peers/errors.js';
import { testNetwork, type TestNetwork } from './helpers.js';

/** A PeerSource whose requests stay open until the test settles them. */
class ScriptedPeers implements PeerSource {
  readonly asked: { pkHex: string; signal: AbortSignal | undefined; resolve(a: PeerAnswer): void; reject(e: unknown): void }[] = [];
  isConnected(): boolean {
    return true;
  }
  penalize(): void {}
  request(pkHex: string, _req: unknown, opts: { signal?: AbortSignal } = {}): Promise<PeerAnswer> {
    return new Promise((resolve, reject) => {
      this.asked.push({ pkHex, signal: opts.signal, resolve, reject });
      opts.signal?.addEventListener('abort', () => reject(opts.signal!.reason), { once: true });
    });
  }
}

function stats(validators: number): CollectionStats {
  return { validators, notConnected: 0, notAsked: 0, asked: 0, answered: 0, refused: 0, timedOut: 0, invalid: 0, failed: 0, fromCache: 0 };
}

function fanOut(net: TestNetwork, targetWeight: bigint, extraWeightPercent: number) {
  const peers = new ScriptedPeers();
  const events: string[] = [];
  const s = stats(net.set.validators.length);
  const f = new FanOut(
    {
      set: net.set,
      request: { message: new Uint8Array(1), justification: new Uint8Array() },
      alreadyHave: () => false,
      targetWeight,
      requestTimeoutMs: 60_000,
      deadlineAt: Date.now() + 60_000,
      options: { extraWeightPercent, hedgeDelayMs: 60_000 },
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
    peers.asked[0]!.reject(new PeerRequestError('timeout', peers.asked[0]!.pkHex, 'no answer'));
    peers.asked[1]!.reject(new P2PRequestError('timeout', 'NodeID-x', 'no answer'));
    peers.asked[2]!.reject(new P2PRequestError('disconnected', 'NodeID-y', 'closed'));
    peers.asked[3]!.resolve({ kind: 'signature', signature: new Uint8Array(96) });
    await tick();
    expect(events).toEqual(['timeout', 'timeout', 'error', 'signature 10']);
    expect(s).toMatchObject({ asked: 4, answered: 1 });
    expect(f.exhausted).toBe(true);
  });

  it('at the deadline counts what is outstanding and cancels it with one shared reason, one signal per 32 requests', async () => {
    const net = testNetwork(Array.from({ length: 40 }, () => 1), 0, 'fan-out-expire');
    const { f, peers, events } = fanOut(net, 40n, 0);
    f.topUp({ weight: 0n, signers: 0 });
    expect(new Set(peers.asked.map((a) => a.signal)).size).toBe(2);
    expect(f.expire()).toBe(40);
    await tick();
    expect(new Set(peers.asked.map((a) => a.signal!.reason))).toEqual(new Set([REQUEST_CANCELLED]));
    // Settled by the deadline: what the peers answer afterwards is not counted again.
    await tick();
    expect(events).toEqual([]);
    f.topUp({ weight: 0n, signers: 0 });
    expect(peers.asked).toHaveLength(40);
  });

  it('once ended, cancels what is outstanding only after the current turn (the answer goes first)', async () => {
    const net = testNetwork([5, 5], 0, 'fan-out-end');
    const { f, peers } = fanOut(net, 10n, 0);
    f.topUp({ weight: 0n, signers: 0 });
    f.end();
    expect(peers.asked.every((a) => !a.signal!.aborted)).toBe(true);
    await tick();
    expect(peers.asked.every((a) => a.signal!.reason === REQUEST_CANCELLED)).toBe(true);
  });
});
