// The aggregation engine against in-process fake peers and the real BLS worker pool: stopping at
// the target, the buffer, the deadline both ways, every kind of bad signature (dropped, penalized,
// never in a result), the cache, coalescing, the concurrency cap and the fan-out policy. Every
// signed message is checked with verifySignedMessage under the noble backend (not the blst one
// the workers use).
import { describe, expect, it } from 'vitest';
import { Aggregator, type AggregationEvent, type AggregationRequest, type AggregationResult, type AggregatorOptions, type ValidatorSets } from '../../src/aggregator/aggregator.js';
import type { ResponseResult } from '../../src/aggregator/collection.js';
import { perSignatureVerify } from '../../bench/per-signature-verify.js';
import { BlsPool } from '../../src/bls-pool/pool.js';
import { minimumFold } from '../../src/aggregator/verification.js';
import { DeadlineExceededError, QuorumNotReachedError, SigningSubnetNotAllowedError } from '../../src/aggregator/errors.js';
import { OverloadedError } from '../../src/util/overloaded.js';
import { classifyError } from '../../src/server/errors.js';
import { SignatureCache } from '../../src/aggregator/signature-cache.js';
import { requiredWeight } from '../../src/validators/quorum.js';
import { verifySignedMessage } from '../../src/validators/verify.js';
import { decodeSigners } from '../../src/warp/bitset.js';
import { bytesToHex } from '../../src/warp/hex.js';
import { parseSignedMessage } from '../../src/warp/signed-message.js';
import { encodeAddressedCall } from '../../src/warp/payload.js';
import { encodeTeleporterMessage, TELEPORTER_MESSENGER_V1_ADDRESS } from '../../src/warp/teleporter.js';
import { newUnsignedMessage } from '../../src/warp/unsigned-message.js';
import type { AskDone, PeerSource } from '../../src/aggregator/peer-source.js';
import {
  FakePeers,
  NETWORK_ID,
  PROPOSED_HEIGHT,
  SUBNET,
  fixedEpochs,
  fixedSets,
  message,
  sign,
  testNetwork,
  type Behaviour,
  type TestNetwork,
  type TestValidator,
} from './helpers.js';
import { edited, g2PointOutsideSubgroupUncompressed, noble, uncompressedOf } from '../bls/helpers.js';
import { cancellingPair, outsideSubgroupPair, useBlsPool } from '../bls-pool/helpers.js';

// 16 validators of uneven weight plus 13 keyless: total 240, 67% needs 161, 87% needs 209.
const WEIGHTS = [40, 30, 25, 20, 18, 16, 14, 12, 10, 9, 8, 7, 6, 5, 4, 3];
const net = testNetwork(WEIGHTS, 13);
const byWeight = (w: number): string => net.validators.find((v) => v.weight === BigInt(w))!.pkHex;

const pool = useBlsPool();

/** Pairs of bad signatures whose sum is the valid aggregate of the right ones. */
const PAIRS = [
  ['points in the subgroup', cancellingPair],
  ['points outside the subgroup', outsideSubgroupPair],
] as const;

let counter = 0;
function request(over: Partial<AggregationRequest> = {}): AggregationRequest {
  return {
    message: message(`aggregator test ${++counter}`),
    justification: new Uint8Array(),
    quorumPercentage: 67,
    quorumPercentageBuffer: 0,
    pChainHeight: 0,
    ...over,
  };
}

function peersWith(n: TestNetwork, behaviours: [pkHex: string, b: Behaviour][] = []): FakePeers {
  const peers = new FakePeers(n);
  for (const [k, b] of behaviours) peers.set(k, b);
  return peers;
}

function aggregator(peers: FakePeers, over: Partial<AggregatorOptions> = {}, n: TestNetwork = net): Aggregator {
  return new Aggregator({
    sets: fixedSets(n),
    epochs: fixedEpochs(),
    peers,
    pool,
    cache: new SignatureCache(),
    deadlineMs: 2_000,
    requestTimeoutMs: 1_500,
    ...over,
  });
}

/** Verifies with the noble backend against the P-Chain's entries; returns the signer keys. */
function expectValid(result: AggregationResult, quorum = 67, n: TestNetwork = net): string[] {
  const v = verifySignedMessage(result.signedMessage, n.entries, quorum, NETWORK_ID, noble);
  expect(v.reason).toBeUndefined();
  expect(v.valid).toBe(true);
  expect(v.signedWeight).toBe(result.signedWeight);
  const signed = parseSignedMessage(result.signedMessage);
  return decodeSigners(signed.signers, n.set.validators.length).map((i) => n.set.validators[i]!.publicKeyHex);
}

/** The next turn of the event loop (after setImmediate callbacks queued now). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('stopping at the target', () => {
  it('returns as soon as the target weight has signed and cancels the outstanding requests', async () => {
    // The 8 heaviest (175 of 240) answer at once, the other 8 would take 3 s.
    const slow = net.validators.filter((v) => v.weight < 12n);
    const peers = peersWith(net, slow.map((v) => [v.pkHex, { kind: 'honest', delayMs: 3_000 }]));
    const agg = aggregator(peers, { fanOut: { extraWeightPercent: 100 } });
    const result = await agg.aggregate(request());
    // Answered while every slow validator still held its request.
    for (const v of slow) expect(peers.settled).not.toContain(v.pkHex);
    expect(peers.aborted).toBe(0);
    expect(peers.requests).toHaveLength(16);
    await nextTurn(); // outstanding requests are cancelled after the answer
    expect(peers.aborted).toBe(slow.length);
    const signers = expectValid(result);
    for (const v of slow) expect(signers).not.toContain(v.pkHex);
    expect(result.signedWeight).toBeGreaterThanOrEqual(requiredWeight(240n, 67));
  });

  it('asks the heaviest validators first and only as many as the missing weight and the hedge need', async () => {
    const peers = peersWith(net);
    const agg = aggregator(peers, { fanOut: { extraWeightPercent: 10, hedgeDelayMs: 1_000 } });
    const result = await agg.aggregate(request());
    expectValid(result);
    // 161 + 24 (10% of 240) is covered by the 9 heaviest (40 … 10 = 185).
    expect(peers.requests).toEqual(net.validators.slice(0, 9).map((v) => v.pkHex));
    expect(new Set(peers.requests).size).toBe(peers.requests.length);
    expect(result.stats.asked).toBe(9);
  });

  it('reaches quorum + buffer when it can (67 + 20 verifies at 87)', async () => {
    const peers = peersWith(net);
    const result = await aggregator(peers).aggregate(request({ quorumPercentageBuffer: 20 }));
    expect(result.signedWeight).toBeGreaterThanOrEqual(requiredWeight(240n, 87));
    expectValid(result, 87);
  });

  it('at quorum 0 still returns a message with one signer', async () => {
    const peers = peersWith(net);
    const result = await aggregator(peers).aggregate(request({ quorumPercentage: 0 }));
    const signers = expectValid(result, 0);
    expect(signers.length).toBeGreaterThanOrEqual(1);
  });

  it('hedges a slow heavy validator: more are asked after hedgeDelayMs, long before its timeout', async () => {
    const peers = peersWith(net, [[byWeight(40), { kind: 'silent' }]]);
    const agg = aggregator(peers, { deadlineMs: 10_000, requestTimeoutMs: 9_000, fanOut: { extraWeightPercent: 0, hedgeDelayMs: 100 } });
    const result = await agg.aggregate(request());
    // Without the hedge the 8 heaviest (175) would have been all: 40's weight counted as on its way.
    expect(peers.requests.length).toBeGreaterThan(8);
    // Answered while the silent validator's request was still open: before its timeout.
    expect(peers.timedOut).toEqual([]);
    expect(peers.aborted).toBe(0);
    expect(expectValid(result)).not.toContain(byWeight(40));
    await nextTurn();
    expect(peers.aborted).toBe(1);
  });
});

/** Peers that never answer on their own: the test delivers each answer by hand, through `answers`. */
function peersByHand(): { peers: PeerSource; answers: Map<string, AskDone> } {
  const answers = new Map<string, AskDone>();
  const peers: PeerSource = {
    isConnected: () => true,
    penalize: () => undefined,
    ask: (pk, _req, _timeoutMs, done) => {
      answers.set(pk, done);
      return { cancel: () => undefined };
    },
  };
  return { peers, answers };
}

describe('the arrival that completes the target', () => {
  it('starts its check at once, in the same turn, while arrivals short of the target wait for the end of the turn', async () => {
    // Answers delivered by hand; the pool counts the work handed to it (any operation).
    const { peers, answers } = peersByHand();
    let handed = 0;
    let settled = 0;
    const counting = new Proxy(pool, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        if (prop === 'suggestedParallelism') return value.bind(target);
        return (...args: unknown[]) => {
          handed++;
          const out = (value as (...a: unknown[]) => unknown).apply(target, args);
          if (out instanceof Promise) void out.finally(() => settled++).catch(() => undefined);
          return out;
        };
      },
    });
    const agg = new Aggregator({ sets: fixedSets(net), epochs: fixedEpochs(), peers, pool: counting, cache: new SignatureCache(), deadlineMs: 5_000, requestTimeoutMs: 4_000, fanOut: { extraWeightPercent: 100, hedgeDelayMs: 4_000 } });
    const req = request();
    const done = agg.aggregate(req);
    const idle = async (): Promise<void> => {
      for (let i = 0; i < 500 && (handed !== settled || answers.size < 16); i++) await new Promise((r) => setTimeout(r, 5));
    };
    await idle();
    const answer = (w: number): number => {
      const before = handed;
      const v = net.validators.find((x) => x.weight === BigInt(w))!;
      answers.get(v.pkHex)!(undefined, { kind: 'signature', signature: sign(v, req.message.bytes) });
      return handed - before;
    };
    // 40 + 30 + 25 + 20 + 18 + 16 = 149 of the 161 needed: each waits for the end of its turn.
    for (const w of [40, 30, 25, 20, 18, 16]) {
      expect(answer(w)).toBe(0);
      await idle();
    }
    // 14 completes the target: its check is handed over before the callback returns.
    expect(answer(14)).toBeGreaterThan(0);
    const result = await done;
    expect(result.signedWeight).toBeGreaterThanOrEqual(161n);
  });
});

describe('folds below the target', () => {
  // 96 validators of weight 1: a fold below the target waits for minimumFold(96) = 3 answers.
  const wide = testNetwork(Array.from({ length: 96 }, () => 1), 0, 'wide');

  /** The pool's work, counted by operation. */
  function countingPool(calls: string[]): BlsPool {
    return new Proxy(pool, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        if (prop === 'suggestedParallelism') return value.bind(target);
        return (...args: unknown[]) => {
          calls.push(String(prop));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  /** Peers whose answers the test delivers by hand, and an aggregator over the 96. */
  function byHand(calls: string[], deadlineMs: number): { agg: Aggregator; answers: Map<string, AskDone> } {
    const { peers, answers } = peersByHand();
    const agg = new Aggregator({ sets: fixedSets(wide), epochs: fixedEpochs(), peers, pool: countingPool(calls), cache: new SignatureCache(), deadlineMs, requestTimeoutMs: 10_000, fanOut: { extraWeightPercent: 100, hedgeDelayMs: 10_000 } });
    return { agg, answers };
  }

  async function asked(answers: Map<string, AskDone>): Promise<void> {
    for (let i = 0; i < 500 && answers.size < 96; i++) await new Promise((r) => setTimeout(r, 5));
  }

  /** `encode`: the form the signature travels in (compressed, as signed, by default). */
  function deliver(answers: Map<string, AskDone>, v: TestValidator, req: AggregationRequest, encode = (sig: Uint8Array) => sig): void {
    answers.get(v.pkHex)!(undefined, { kind: 'signature', signature: encode(sign(v, req.message.bytes)) });
  }

  /** An aggregation over the 96 under way, every validator asked, the pool's work counted in `calls`. */
  async function underWay(): Promise<{ calls: string[]; answers: Map<string, AskDone>; req: AggregationRequest; done: Promise<AggregationResult> }> {
    const calls: string[] = [];
    const { agg, answers } = byHand(calls, 5_000);
    const req = request();
    const done = agg.aggregate(req);
    await asked(answers);
    return { calls, answers, req, done };
  }

  /** Each answer in a turn of its own, in `encode`'s form. */
  function oneByOne(answers: Map<string, AskDone>, req: AggregationRequest, encode: (sig: Uint8Array) => Uint8Array) {
    return async (v: TestValidator): Promise<void> => {
      deliver(answers, v, req, encode);
      await nextTurn();
      await nextTurn();
    };
  }

  it('one fold per minimumFold compressed answers (3), not one per turn: a fold hands the answers to a worker, which costs as much as checking five', async () => {
    expect(minimumFold(96)).toBe(3);
    const { calls, answers, req, done } = await underWay();
    const answer = oneByOne(answers, req, (sig) => sig);
    // All but one of a fold's wait, the last goes with them.
    for (const v of wide.validators.slice(0, 2)) await answer(v);
    expect(calls).toEqual([]);
    await answer(wide.validators[2]!);
    expect(calls).toEqual(['fold']);
    // 65 of 96 reach 67%: 65 / 3 folds at most on the way, then the one task that completes it.
    for (const v of wide.validators.slice(3, 65)) await answer(v);
    const result = await done;
    expect(result.signedWeight).toBe(65n);
    expect(calls.filter((c) => c === 'fold').length).toBeLessThanOrEqual(21);
    expect(calls.at(-1)).toBe('foldAndCheck');
  });

  it('uncompressed answers (our own signers\') decode without a square root: they wait for 128 whatever the set, so a quorum of 65 of 96 goes to a worker once, with its final check', async () => {
    const { calls, answers, req, done } = await underWay();
    const answer = oneByOne(answers, req, uncompressedOf);
    for (const v of wide.validators.slice(0, 64)) await answer(v);
    expect(calls).toEqual([]);
    await answer(wide.validators[64]!);
    const result = await done;
    expect(result.signedWeight).toBe(65n);
    expect(calls).toEqual(['foldAndCheck']);
  });

  it('a compressed answer among uncompressed ones folds at minimumFold again: its square root is what the completing fold must not pile up', async () => {
    const { calls, answers, req, done } = await underWay();
    // Eleven uncompressed (2.75 compressed signatures' worth) wait; one compressed brings 3.75.
    for (const v of wide.validators.slice(0, 11)) await oneByOne(answers, req, uncompressedOf)(v);
    expect(calls).toEqual([]);
    await oneByOne(answers, req, (sig) => sig)(wide.validators[11]!);
    expect(calls).toEqual(['fold']);
    for (const v of wide.validators.slice(12, 65)) await oneByOne(answers, req, uncompressedOf)(v);
    expect((await done).signedWeight).toBe(65n);
    expect(calls.at(-1)).toBe('foldAndCheck');
  });

  it('at the deadline, answers short of a fold are checked all the same: the quorum without the buffer is returned, not a 504', async () => {
    const calls: string[] = [];
    const { agg, answers } = byHand(calls, 600);
    const req = request({ quorumPercentageBuffer: 20 });
    const done = agg.aggregate(req);
    await asked(answers);
    // 63 in one turn: one fold. Then two more, each in a turn of its own: they wait for a third
    // that never comes. 65 reach 67% but not the 87% asked for (84).
    for (const v of wide.validators.slice(0, 63)) deliver(answers, v, req);
    for (let i = 0; i < 500 && !calls.includes('fold'); i++) await nextTurn();
    for (const v of wide.validators.slice(63, 65)) {
      deliver(answers, v, req);
      await nextTurn();
    }
    const result = await done;
    expect(result.signedWeight).toBe(65n);
    expect(expectValid(result, 67, wide)).toHaveLength(65);
  });
});

describe('the deadline', () => {
  // The 8 heaviest hold 175: above 67% (161), below 87% (209). The rest never answer.
  const silentLight = (): [string, Behaviour][] => net.validators.filter((v) => v.weight < 12n).map((v) => [v.pkHex, { kind: 'silent' }]);

  /**
   * Every silent request ended at the deadline and none was answered: a request's timeout is
   * capped at the collection's deadline, so each was given up on as timed out there (by the
   * fan-out's timer or the collection's deadline, whichever fired first), none merely cancelled.
   */
  function expectEndedAtTheDeadline(peers: FakePeers, silent: [string, Behaviour][]): void {
    for (const [k] of silent) expect(peers.settled).not.toContain(k);
    expect([...peers.timedOut].sort()).toEqual(silent.map(([k]) => k).sort());
    expect(peers.abortReasons).toEqual([]);
  }

  it('returns what has signed at the deadline when that reaches the quorum but not the buffer', async () => {
    const peers = peersWith(net, silentLight());
    const agg = aggregator(peers, { deadlineMs: 800, requestTimeoutMs: 5_000, fanOut: { extraWeightPercent: 100 } });
    const result = await agg.aggregate(request({ quorumPercentageBuffer: 20 }));
    // The deadline ended it: the 8 silent requests ended there (each by its own timeout, capped
    // at the deadline, or cancelled by the collection) and count as timed out; none answered.
    expect(result.stats.timedOut).toBe(8);
    expectEndedAtTheDeadline(peers, silentLight());
    expect(result.signedWeight).toBe(175n);
    expectValid(result, 67);
    expect(verifySignedMessage(result.signedMessage, net.entries, 87, NETWORK_ID, noble).valid).toBe(false);
  });

  it('fails with 503 within the deadline when less than the quorum has signed, with the counts', async () => {
    // Only the 4 heaviest (115) answer.
    const silent: [string, Behaviour][] = net.validators.filter((v) => v.weight < 20n).map((v) => [v.pkHex, { kind: 'silent' }]);
    const peers = peersWith(net, silent);
    const agg = aggregator(peers, { deadlineMs: 800, requestTimeoutMs: 5_000 });
    const err = await rejection(agg.aggregate(request()));
    // The deadline fired while the 12 silent peers still held their requests: each ended there,
    // and the request was answered with the counts.
    expectEndedAtTheDeadline(peers, silent);
    expect(err).toBeInstanceOf(QuorumNotReachedError);
    const q = err as QuorumNotReachedError;
    expect(classifyError(q)).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
    expect(q.signedWeight).toBe(115n);
    expect(q.requiredWeight).toBe(161n);
    expect(q.stats).toMatchObject({ asked: 16, answered: 4, timedOut: 12, invalid: 0, refused: 0, notConnected: 0 });
    expect(q.message).toMatch(/by the deadline: signed weight 115 of 240 .* required 161; validators 16: asked 16, answered 4, refused 0, timed out 12, invalid signatures 0/);
  });

  it('fails at once, before the deadline, when every validator has refused, failed or is not connected', async () => {
    const behaviours: [string, Behaviour][] = net.validators.slice(4).map((v, i) => [v.pkHex, { kind: i < 6 ? 'refuse' : i < 9 ? 'fail' : 'disconnected' }]);
    const peers = peersWith(net, behaviours);
    const err = await rejection(aggregator(peers, { deadlineMs: 5_000 }).aggregate(request()));
    expect(err).toBeInstanceOf(QuorumNotReachedError);
    // Nothing was left to wait for: no request outstanding, none counted as timed out.
    expect(peers.aborted).toBe(0);
    expect((err as QuorumNotReachedError).stats).toMatchObject({ asked: 13, answered: 4, refused: 6, failed: 3, notConnected: 3, timedOut: 0 });
    expect((err as Error).message).toMatch(/after every connected validator was asked/);
  });

  it('answers 504 when the validator set arrives after the deadline', async () => {
    const peers = peersWith(net);
    const sets = fixedSets(net);
    const agg = new Aggregator({
      sets: { get: async (s, h) => new Promise((r) => setTimeout(() => r(sets.get(s, h)), 300)), signingSubnetFor: sets.signingSubnetFor, proposedHeight: sets.proposedHeight },
      epochs: fixedEpochs(),
      peers,
      pool,
      cache: new SignatureCache(),
      deadlineMs: 200,
    });
    const err = await rejection(agg.aggregate(request()));
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect((err as Error).message).toMatch(/deadline of 200 ms passed while the validator set was being read from the P-Chain/);
    expect(peers.requests).toHaveLength(0);
  });
});

describe('bad signatures', () => {
  function expectDropped(result: AggregationResult, peers: FakePeers, bad: string[]): void {
    const signers = expectValid(result);
    for (const k of bad) expect(signers).not.toContain(k);
    expect(new Set(peers.penalties.map((p) => p.pkHex))).toEqual(new Set(bad));
    expect(result.stats.invalid).toBe(bad.length);
  }

  for (const [strategy, verification] of [
    ['warpgate', undefined],
    ['perSignatureVerify', perSignatureVerify],
  ] as const) {
    it(`${strategy}: another message, another key, outside the subgroup, garbage and infinity are dropped and penalized`, async () => {
      const kinds: Behaviour['kind'][] = ['otherMessage', 'otherKey', 'outsideSubgroup', 'garbage', 'infinity'];
      // Weights 16, 14, 12, 10, 9 (61) misbehave; the honest rest holds 166 >= 161.
      const bad = [16, 14, 12, 10, 9].map(byWeight);
      const peers = peersWith(net, bad.map((k, i) => [k, { kind: kinds[i]! } as Behaviour]));
      const responses: ResponseResult[] = [];
      const agg = aggregator(peers, { verification, fanOut: { extraWeightPercent: 100 }, events: { onResponse: (r) => responses.push(r) } });
      const result = await agg.aggregate(request());
      expectDropped(result, peers, bad);
      expect(responses.filter((r) => r === 'invalid')).toHaveLength(5);
    });
  }

  it('warpgate: bad answers in the uncompressed form (our own signers\') are dropped and penalized like compressed ones, among compressed good ones', async () => {
    const req = request();
    const bad = [16, 14, 12, 10, 9].map(byWeight);
    const own = (k: string): Uint8Array => uncompressedOf(sign(net.byKey.get(k)!, req.message.bytes));
    const infinity = edited(new Uint8Array(192), (b) => (b[0] = 0x40));
    const answers = [
      g2PointOutsideSubgroupUncompressed(),
      edited(own(bad[1]!), (b) => (b[191] = b[191]! ^ 1)),
      edited(own(bad[2]!), (b) => (b[0] = b[0]! | 0x80)),
      uncompressedOf(sign(net.byKey.get(bad[3]!)!, new TextEncoder().encode('another message'))),
      infinity,
    ];
    const peers = peersWith(net, bad.map((k, i) => [k, { kind: 'fixed', signature: answers[i]! } as Behaviour]));
    const result = await aggregator(peers, { fanOut: { extraWeightPercent: 100 } }).aggregate(req);
    expectDropped(result, peers, bad);
  });

  it('a bad heavy signature is found by bisection and more validators are asked to make up its weight', async () => {
    // 40 and 25 lie; the honest 162 is just enough, so everyone honest must end up asked.
    const bad = [byWeight(40), byWeight(25)];
    const peers = peersWith(net, [
      [bad[0]!, { kind: 'otherMessage' }],
      [bad[1]!, { kind: 'otherKey' }],
    ]);
    const result = await aggregator(peers).aggregate(request());
    expectDropped(result, peers, bad);
    expect(result.signedWeight).toBe(162n);
  });

  // Two points outside the subgroup whose sum is inside it are the same case for the optimistic
  // path (only the aggregate gets the subgroup check): each alone fails it.
  for (const [pairKind, makePair] of PAIRS) {
  it(`two colluding signatures that cancel out (${pairKind}): the message is still validly signed, and a cached half alone is found and dropped`, async () => {
    // sa = sig_a + X and sb = sig_b - X sum to sig_a + sig_b: a valid signature by both keys,
    // which is all the final check (avalanchego's) asks. Each alone is invalid, so when a later
    // aggregation reuses the cached sa without sb, bisection must find it and ask a again.
    const req = request();
    const [a, b] = [byWeight(40), byWeight(30)];
    const [sa, sb] = makePair(sign(net.byKey.get(a)!, req.message.bytes), sign(net.byKey.get(b)!, req.message.bytes));
    const colluding = peersWith(net, [
      [a, { kind: 'fixed', signature: sa }],
      [b, { kind: 'fixed', signature: sb }],
    ]);
    const cache = new SignatureCache();
    const first = await aggregator(colluding, { cache, fanOut: { extraWeightPercent: 100 } }).aggregate(req);
    const signers = expectValid(first);
    expect(signers).toContain(a);
    expect(signers).toContain(b);

    const id = bytesToHex(req.message.id);
    cache.delete(id, b);
    expect(cache.get(id).get(a)).toEqual(sa);
    const honest = peersWith(net);
    // At 87% (209 of 240) the target needs a's weight again.
    const second = await aggregator(honest, { cache, fanOut: { extraWeightPercent: 100 } }).aggregate({ ...req, quorumPercentage: 87 });
    expect(expectValid(second, 87)).toContain(a);
    // The cached half is ours, not the peer's: no penalty; a is asked afresh.
    expect(honest.requests).toContain(a);
    expect(honest.penalties).toEqual([]);
    expect(cache.get(id).get(a)).not.toEqual(sa);
  });
  }

  it('bisection finds several bad signatures among 64 that arrive together', async () => {
    const big = testNetwork(Array.from({ length: 64 }, () => 10), 0, 'big');
    const bad = [3, 17, 18, 40, 51, 63].map((i) => big.validators[i]!.pkHex);
    const peers = peersWith(big, bad.map((k, i) => [k, { kind: i % 2 ? 'otherKey' : 'otherMessage', delayMs: 20 } as Behaviour]));
    for (const v of big.validators) if (!bad.includes(v.pkHex)) peers.set(v.pkHex, { kind: 'honest', delayMs: 20 });
    const agg = aggregator(peers, { fanOut: { extraWeightPercent: 100 } }, big);
    const result = await agg.aggregate(request({ quorumPercentage: 90 }));
    const signers = expectValid(result, 90, big);
    for (const k of bad) expect(signers).not.toContain(k);
    expect(new Set(peers.penalties.map((p) => p.pkHex))).toEqual(new Set(bad));
  });
});

describe('what a finished aggregation reports', () => {
  it('the time the signers took: until the weight completing the target had arrived, 0 when it all came from the cache', async () => {
    // No extra weight and no hedge before the deadline: the heaviest (40), which answers after
    // 300 ms, is among the validators that must sign, so the target cannot be complete before then.
    const peers = peersWith(net, [[byWeight(40), { kind: 'honest', delayMs: 300 }]]);
    const events: AggregationEvent[] = [];
    const agg = aggregator(peers, { events: { onAggregation: (e) => events.push(e) }, fanOut: { extraWeightPercent: 0, hedgeDelayMs: 5_000 } });
    const req = request();
    const first = await agg.aggregate(req);
    expect(expectValid(first)).toContain(byWeight(40));
    // 299: a timer counts whole milliseconds from the event loop's cached clock, the collection
    // reads a precise one, so the 300 ms answer can read a fraction of a millisecond early.
    expect(first.idealMs).toBeGreaterThanOrEqual(299);
    const second = await agg.aggregate(req);
    expect(second.stats.fromCache).toBe(first.signers.length);
    expect(second.idealMs).toBe(0);

    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ outcome: 'success', subnetId: SUBNET, signers: first.signers.length, signedWeight: first.signedWeight, totalWeight: 240n, idealMs: first.idealMs });
    // The time the signers took is part of the whole aggregation's.
    expect(events[0]!.idealMs!).toBeLessThanOrEqual(events[0]!.ms);
    expect(events[1]).toMatchObject({ outcome: 'success', idealMs: 0 });
  });

  it('a failure reports the subnet and, for a quorum not reached, the weight that signed; an error its kind', async () => {
    const events: AggregationEvent[] = [];
    const onAggregation = (e: AggregationEvent): number => events.push(e);
    const refusing = peersWith(net, net.validators.map((v): [string, Behaviour] => [v.pkHex, { kind: v.weight >= 20n ? 'honest' : 'refuse' }]));
    await expect(aggregator(refusing, { events: { onAggregation } }).aggregate(request())).rejects.toBeInstanceOf(QuorumNotReachedError);
    const neverSets: ValidatorSets = { get: () => new Promise(() => undefined), signingSubnetFor: () => new Promise(() => undefined), proposedHeight: () => new Promise(() => undefined) };
    await expect(aggregator(peersWith(net), { events: { onAggregation }, sets: neverSets, deadlineMs: 200 }).aggregate(request({ signingSubnetId: SUBNET }))).rejects.toBeInstanceOf(DeadlineExceededError);
    expect(events[0]).toMatchObject({ outcome: 'quorum_not_reached', subnetId: SUBNET, signedWeight: 115n, totalWeight: 240n });
    expect(events[0]).not.toHaveProperty('idealMs');
    expect(events[1]).toMatchObject({ outcome: 'error', subnetId: SUBNET, error: 'DeadlineExceededError' });
  });
});

describe('the signature cache', () => {
  it('serves a repeat request without a single peer request, whatever the hedge', async () => {
    const peers = peersWith(net);
    const hits: boolean[] = [];
    const cache = new SignatureCache();
    const events = { onCache: (hit: boolean) => hits.push(hit) };
    const req = request();
    // The first collects just the target; the second would hedge with 50% more if it asked at all.
    const first = await aggregator(peers, { cache, events, fanOut: { extraWeightPercent: 0 } }).aggregate(req);
    const asked = peers.requests.length;
    expect(asked).toBeGreaterThan(0);
    const second = await aggregator(peers, { cache, events, fanOut: { extraWeightPercent: 50 } }).aggregate(req);
    expect(peers.requests).toHaveLength(asked);
    expect(hits).toEqual([false, true]);
    expect(second.stats.fromCache).toBe(first.signers.length);
    expectValid(second);
  });

  it('a larger buffer on a repeat asks only for the missing weight', async () => {
    const peers = peersWith(net);
    const agg = aggregator(peers, { fanOut: { extraWeightPercent: 0 } });
    const req = request();
    const first = await agg.aggregate(req);
    const firstKeys = new Set(peers.requests);
    const second = await agg.aggregate({ ...req, quorumPercentageBuffer: 20 });
    for (const k of peers.requests.slice(firstKeys.size)) expect(firstKeys.has(k)).toBe(false);
    expect(second.signedWeight).toBeGreaterThan(first.signedWeight);
    expectValid(second, 87);
  });

  it('a bad signature in the cache is dropped from it without penalizing the peer', async () => {
    const peers = peersWith(net);
    const cache = new SignatureCache();
    const req = request();
    const heavy = net.byKey.get(byWeight(40))!;
    cache.add(bytesToHex(req.message.id), [[heavy.pkHex, sign(heavy, new TextEncoder().encode('not this message'))]]);
    const result = await aggregator(peers, { cache }).aggregate(req);
    expectValid(result);
    expect(peers.penalties).toHaveLength(0);
    const now = cache.get(bytesToHex(req.message.id)).get(heavy.pkHex);
    if (now) expect(bytesToHex(now)).toBe(bytesToHex(sign(heavy, req.message.bytes)));
  });
});

describe('sharing and limits', () => {
  it('concurrent identical requests share one collection', async () => {
    const peers = peersWith(net, net.validators.map((v) => [v.pkHex, { kind: 'honest', delayMs: 50 }]));
    const agg = aggregator(peers);
    const req = request();
    const [a, b] = await Promise.all([agg.aggregate(req), agg.aggregate({ ...req })]);
    expect(b).toBe(a);
    expect(new Set(peers.requests).size).toBe(peers.requests.length);
    expectValid(a);
  });

  it('past maxConcurrent a different request gets an OverloadedError (503, Retry-After)', async () => {
    const peers = peersWith(net, net.validators.map((v) => [v.pkHex, { kind: 'honest', delayMs: 200 }]));
    const agg = aggregator(peers, { maxConcurrent: 1 });
    const first = agg.aggregate(request());
    const err = await rejection(agg.aggregate(request()));
    expect(err).toBeInstanceOf(OverloadedError);
    expect((err as OverloadedError).retryAfterSeconds).toBeGreaterThan(0);
    expect(classifyError(err)).toMatchObject({ status: 503, headers: { 'retry-after': String((err as OverloadedError).retryAfterSeconds) } });
    expectValid(await first);
    expect(agg.active).toBe(0);
    expectValid(await agg.aggregate(request()));
  });
});

describe('answer first, cancel after', () => {
  // 80 validators: the 40 heavy ones answer at once and make the quorum; the 40 light ones never
  // answer, so 40 requests are outstanding when it succeeds.
  const wide = testNetwork([...Array.from({ length: 40 }, () => 100), ...Array.from({ length: 40 }, () => 1)], 0, 'wide');

  it('resolves before any outstanding request is cancelled, then cancels them all as no longer needed (not timed out)', async () => {
    const light = wide.validators.filter((v) => v.weight === 1n);
    const peers = peersWith(wide, light.map((v) => [v.pkHex, { kind: 'silent' }]));
    const agg = aggregator(peers, { fanOut: { extraWeightPercent: 100 } }, wide);
    let cancelledWhenAnswered = -1;
    const result = await agg.aggregate(request()).then((r) => {
      cancelledWhenAnswered = peers.aborted;
      return r;
    });
    expectValid(result, 67, wide);
    expect(peers.requests).toHaveLength(80);
    expect(cancelledWhenAnswered).toBe(0);
    await nextTurn();
    expect(peers.aborted).toBe(light.length);
    // Cancelled, not counted against the peers as timeouts.
    expect(peers.abortReasons).toEqual(light.map(() => 'cancelled'));
    expect(peers.timedOut).toEqual([]);
  });
});

describe('the deadline bounds the whole aggregation', () => {
  it('stops waiting for a validator set that never comes at the deadline, and frees the slot', async () => {
    const peers = peersWith(net);
    let seen: AbortSignal | undefined;
    const never: ValidatorSets = {
      // Honours the signal, as ValidatorSetCache does: rejects with its reason when it aborts.
      get: (_s, _h, opts) =>
        new Promise((_, reject) => {
          seen = opts?.signal;
          opts?.signal?.addEventListener('abort', () => reject(opts.signal!.reason as unknown), { once: true });
        }),
      signingSubnetFor: async () => SUBNET,
      proposedHeight: async () => 1,
    };
    const agg = new Aggregator({ sets: never, epochs: fixedEpochs(), peers, pool, cache: new SignatureCache(), deadlineMs: 300 });
    const err = await settles(rejection(agg.aggregate(request())), 10_000);
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect((err as Error).message).toBe('the aggregation deadline of 300 ms passed while the validator set was being read from the P-Chain');
    expect(seen?.aborted).toBe(true);
    expect(agg.active).toBe(0);
    expect(peers.requests).toHaveLength(0);
  });

  it('also when the signing subnet lookup (platform.validatedBy) never answers', async () => {
    const peers = peersWith(net);
    const sets = fixedSets(net);
    const agg = new Aggregator({
      sets: { get: sets.get, signingSubnetFor: () => new Promise<Uint8Array>(() => {}), proposedHeight: sets.proposedHeight },
      epochs: fixedEpochs(),
      peers,
      pool,
      cache: new SignatureCache(),
      deadlineMs: 300,
    });
    const err = await settles(rejection(agg.aggregate(request())), 10_000);
    expect((err as Error).message).toMatch(/deadline of 300 ms passed while the signing subnet was being read from the P-Chain \(platform\.validatedBy\)/);
    expect(agg.active).toBe(0);
  });

  it('answers by the deadline even while the final check waits behind a busy worker pool', async () => {
    const busy = new BlsPool({ backend: 'blst', threads: 1 });
    await busy.warm();
    try {
      // Seconds of full signature verifications ahead of anything the aggregation queues.
      const v = net.validators[0]!;
      const msg = new TextEncoder().encode('backlog');
      const sig = sign(v, msg);
      const pk = net.set.validators[net.set.indexOf(v.pkHex)!]!.publicKey.bytes;
      let backlogDone = false;
      const backlog = Promise.all(
        [1, 2].map(() => busy.verifyEach({ message: msg, sigs: Array.from({ length: 2000 }, () => sig), pks: Array.from({ length: 2000 }, () => pk) })),
      ).then(() => {
        backlogDone = true;
      });
      const peers = peersWith(net);
      const agg = new Aggregator({ sets: fixedSets(net), epochs: fixedEpochs(), peers, pool: busy, cache: new SignatureCache(), deadlineMs: 600, requestTimeoutMs: 500 });
      const err = await rejection(agg.aggregate(request()));
      const answeredBeforeBacklog = !backlogDone;
      expect(err).toBeInstanceOf(DeadlineExceededError);
      expect((err as Error).message).toMatch(/deadline of 600 ms passed while the collected signatures were being checked/);
      expect(answeredBeforeBacklog).toBe(true);
      expect(agg.active).toBe(0);
      await backlog;
    } finally {
      await busy.close();
    }
  });
});

/** Settles as `p` does, or fails after a generous `ms` (an event-driven wait, not a timing assertion). */
function settles<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

describe('the fewest signers', () => {
  // 60% + 10% buffer of 240 is 168. The four lightest (3, 4, 5, 6: 18) answer first, one by one,
  // and are each checked while the target is far; the others answer together later, and the
  // heaviest of them (40 … 14: 163) complete the target. Of those eleven, 3, 4 and 5 are then
  // redundant: 163 + 6 = 169 already reaches 168.
  const lightFirst = (): [string, Behaviour][] =>
    net.validators.map((v) => [v.pkHex, { kind: 'honest', delayMs: v.weight <= 6n ? Number(v.weight) - 2 : 60 }]);
  const buffered = (): AggregationRequest => request({ quorumPercentage: 60, quorumPercentageBuffer: 10 });

  /** Signers of the message whose weight the message could do without and still reach `target`. */
  function redundantSigners(result: AggregationResult, target: bigint): string[] {
    const signers = expectValid(result, 60);
    const weightOf = (k: string): bigint => net.byKey.get(k)!.weight;
    const total = signers.reduce((w, k) => w + weightOf(k), 0n);
    expect(total).toBe(result.signedWeight);
    return signers.filter((k) => total - weightOf(k) >= target);
  }

  it('with a buffer and uneven weights, no signer in the message is redundant; only the signers are checked and cached', async () => {
    const peers = peersWith(net, lightFirst());
    const cache = new SignatureCache();
    const req = buffered();
    const result = await aggregator(peers, { cache, fanOut: { extraWeightPercent: 100 } }).aggregate(req);
    const target = requiredWeight(240n, 70);
    expect(redundantSigners(result, target)).toEqual([]);
    expect(result.signedWeight).toBeGreaterThanOrEqual(target);
    const signers = expectValid(result, 70);
    expect(signers).not.toContain(byWeight(3));
    expect(signers).toHaveLength(8);
    // Eleven were ready; the subset of eight got the only check, and only they were proven.
    expect(result).toMatchObject({ signaturesProven: 8, signaturesLeftOut: 3 });
    expect(result.subsetCheckMs).toBeGreaterThan(0);
    const cached = cache.get(bytesToHex(req.message.id));
    expect([...cached.keys()].sort()).toEqual([...signers].sort());
    expect(cached.has(byWeight(3))).toBe(false);
  });

  it('a bad signature the fewest signers leave out goes unchecked, as a reserve does: the message verifies, its peer is neither penalized nor counted valid, and it is not cached', async () => {
    // As above, but 3 (answering first, left out at the end) signs another message.
    const req = buffered();
    const wrong = sign(net.byKey.get(byWeight(3))!, new TextEncoder().encode('another message'));
    const peers = peersWith(
      net,
      lightFirst().map(([k, b]): [string, Behaviour] => (k === byWeight(3) ? [k, { kind: 'fixed', signature: wrong, delayMs: 1 }] : [k, b])),
    );
    const responses: ResponseResult[] = [];
    const cache = new SignatureCache();
    const result = await aggregator(peers, { cache, fanOut: { extraWeightPercent: 100 }, events: { onResponse: (r) => responses.push(r) } }).aggregate(req);
    expect(expectValid(result, 70)).toHaveLength(8);
    expect(expectValid(result, 70)).not.toContain(byWeight(3));
    expect(peers.penalties).toEqual([]);
    expect(result.stats.invalid).toBe(0);
    expect(responses).toEqual(Array.from({ length: 8 }, () => 'valid'));
    expect(cache.get(bytesToHex(req.message.id)).has(byWeight(3))).toBe(false);
  });

  it('the batch that completes the target goes to the workers as one task: its fold, the final check and the fewest signers’ check', async () => {
    // The answers that complete the target arrive together: one batch, though two threads are free.
    const calls: string[] = [];
    const recorded = new Proxy(pool, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (key !== 'suggestedParallelism') calls.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const peers = peersWith(net, lightFirst());
    const result = await aggregator(peers, { pool: recorded, fanOut: { extraWeightPercent: 100 } }).aggregate(buffered());
    expect(expectValid(result, 70)).toHaveLength(8);
    expect(result.subsetCheckMs).toBeGreaterThan(0);
    // The four light ones were folded on their own before; then one task did the rest.
    expect(calls.filter((c) => c !== 'fold')).toEqual(['foldAndCheck']);
    expect(calls.at(-1)).toBe('foldAndCheck');
  });

  it('a heavy answer completing the target over many light ones: the fewest signers are checked from their own signatures, the completing one among them', async () => {
    // 20% of 240 is 48. The seven lightest (9 … 3: 42) answer first and are folded one by one; 40
    // completes the target alone, the rest answer later. The fewest are 40 and 9 (49): two kept
    // against six left out, so the subset is summed from its own signatures, 40's from the batch
    // that completes the target.
    const peers = peersWith(
      net,
      net.validators.map((v) => [v.pkHex, { kind: 'honest', delayMs: v.weight <= 9n ? Number(v.weight) - 2 : v.weight === 40n ? 60 : 400 }]),
    );
    const result = await aggregator(peers, { fanOut: { extraWeightPercent: 100 } }).aggregate(request({ quorumPercentage: 20 }));
    expect(new Set(expectValid(result, 20))).toEqual(new Set([byWeight(40), byWeight(9)]));
    expect(result).toMatchObject({ signaturesProven: 2, signaturesLeftOut: 6 });
    expect(result.subsetCheckMs).toBeGreaterThan(0);
  });

  it('with aggregation.minimizeSigners off, the same answers give a message carrying the redundant ones', async () => {
    const peers = peersWith(net, lightFirst());
    const result = await aggregator(peers, { minimizeSigners: false, fanOut: { extraWeightPercent: 100 } }).aggregate(buffered());
    const redundant = redundantSigners(result, requiredWeight(240n, 70));
    expect(redundant).toEqual(expect.arrayContaining([byWeight(3), byWeight(4), byWeight(5)]));
    expect(expectValid(result, 70)).toHaveLength(11);
    expect(result).toMatchObject({ signaturesProven: 11, signaturesLeftOut: 0, subsetCheckMs: 0 });
  });

  for (const [pairKind, makePair] of PAIRS) {
  it(`two bad signatures that cancel out (${pairKind}), one left out of the message: the subset’s own check fails, bisection finds both, collecting goes on`, async () => {
    // 3 answers first and is folded alone; 40 comes with the rest. The aggregate of everything
    // would pass (the two cancel), but 3 is redundant at 67% (40 … 14 make 163 of 161): the
    // message without it would carry 40's bad half alone. Its subset check fails instead.
    const req = request();
    const [a, b] = [byWeight(40), byWeight(3)];
    const [sa, sb] = makePair(sign(net.byKey.get(a)!, req.message.bytes), sign(net.byKey.get(b)!, req.message.bytes));
    const peers = peersWith(
      net,
      net.validators.map((v) => [v.pkHex, v.pkHex === a ? { kind: 'fixed', signature: sa, delayMs: 60 } : v.pkHex === b ? { kind: 'fixed', signature: sb, delayMs: 1 } : { kind: 'honest', delayMs: 60 }]),
    );
    const responses: ResponseResult[] = [];
    const cache = new SignatureCache();
    const result = await aggregator(peers, { cache, fanOut: { extraWeightPercent: 100 }, events: { onResponse: (r) => responses.push(r) } }).aggregate(req);
    const signers = expectValid(result);
    expect(signers).not.toContain(a);
    expect(signers).not.toContain(b);
    expect(new Set(peers.penalties.map((p) => p.pkHex))).toEqual(new Set([a, b]));
    expect(result.stats.invalid).toBe(2);
    // Neither was counted valid first and invalid after.
    expect(responses.filter((r) => r === 'invalid')).toHaveLength(2);
    expect(responses.filter((r) => r === 'valid').length + 2).toBe(responses.length);
    expect(cache.get(bytesToHex(req.message.id)).has(a)).toBe(false);
  });
  }
});

describe('the P-Chain height signed at', () => {
  const DEST = Uint8Array.from({ length: 32 }, (_, i) => 200 - i);
  const EPOCH = { number: 12, startTime: 1_755_802_182, pChainHeight: 640 };

  function withHeights(over: Partial<AggregatorOptions> = {}) {
    const sets = fixedSets(net);
    const epochs = fixedEpochs({ [bytesToHex(DEST)]: EPOCH });
    const heights: string[] = [];
    const peers = peersWith(net);
    const agg = aggregator(peers, { sets, epochs, events: { onHeight: (s) => heights.push(s) }, ...over });
    return { sets, epochs, heights, peers, agg };
  }

  /** A Teleporter message from the test chain to `destination`, as TeleporterMessenger sends one. */
  function teleporterRequest(destination: Uint8Array): AggregationRequest {
    const teleporter = encodeTeleporterMessage({
      messageNonce: 7n,
      originSenderAddress: new Uint8Array(20).fill(1),
      destinationBlockchainID: destination,
      destinationAddress: new Uint8Array(20).fill(2),
      requiredGasLimit: 100_000n,
      allowedRelayerAddresses: [],
      receipts: [],
      message: new TextEncoder().encode(`teleporter ${++counter}`),
    });
    const payload = encodeAddressedCall(TELEPORTER_MESSENGER_V1_ADDRESS, teleporter);
    return request({ message: newUnsignedMessage(NETWORK_ID, message('x').sourceChainId, payload) });
  }

  it('without a destination: the proposed height, which the client’s lookback bound does not judge', async () => {
    const { sets, epochs, heights, agg } = withHeights();
    const result = await agg.aggregate(request());
    expect(result).toMatchObject({ pChainHeight: PROPOSED_HEIGHT, heightSource: 'proposed' });
    expect(result.destinationBlockchainId).toBeUndefined();
    expect(sets.heights).toEqual([{ height: PROPOSED_HEIGHT, chosenByClient: false }]);
    expect(epochs.asked).toEqual([]);
    expect(heights).toEqual(['proposed']);
  });

  it('a destinationBlockchainId: its epoch’s P-Chain height', async () => {
    const { sets, epochs, heights, agg } = withHeights();
    const result = await agg.aggregate(request({ destinationBlockchainId: DEST }));
    expect(result).toMatchObject({ pChainHeight: 640, heightSource: 'epoch', destinationBlockchainId: DEST });
    expect(sets.heights).toEqual([{ height: 640, chosenByClient: false }]);
    expect(epochs.asked).toEqual([bytesToHex(DEST)]);
    expect(heights).toEqual(['epoch']);
    expectValid(result);
  });

  it('a Teleporter message with no destination given: its destinationBlockchainID', async () => {
    const { epochs, agg } = withHeights();
    const result = await agg.aggregate(teleporterRequest(DEST));
    expect(result).toMatchObject({ pChainHeight: 640, heightSource: 'epoch', destinationBlockchainId: DEST });
    expect(epochs.asked).toEqual([bytesToHex(DEST)]);
  });

  it('an explicit pChainHeight wins over both, reads no epoch, and is bounded as the client’s', async () => {
    const { sets, epochs, heights, agg } = withHeights();
    const result = await agg.aggregate({ ...teleporterRequest(DEST), pChainHeight: 77 });
    expect(result).toMatchObject({ pChainHeight: 77, heightSource: 'explicit' });
    expect(sets.heights).toEqual([{ height: 77, chosenByClient: true }]);
    expect(epochs.asked).toEqual([]);
    expect(heights).toEqual(['explicit']);
  });

  it('a destination whose epoch cannot be read fails the request, and no peer is asked', async () => {
    const { agg, peers, sets } = withHeights();
    const unknown = new Uint8Array(32).fill(9);
    await expect(agg.aggregate(request({ destinationBlockchainId: unknown }))).rejects.toThrow(`no epoch for destination ${bytesToHex(unknown)}`);
    expect(peers.requests).toEqual([]);
    expect(sets.gets).toBe(0);
  });

  it('one message for two destinations: two collections, each at its own height', async () => {
    const { sets, agg } = withHeights();
    const req = request();
    const [toDest, toNone] = await Promise.all([agg.aggregate({ ...req, destinationBlockchainId: DEST }), agg.aggregate(req)]);
    expect(toDest.pChainHeight).toBe(640);
    expect(toNone.pChainHeight).toBe(PROPOSED_HEIGHT);
    expect(sets.heights.map((h) => h.height).sort()).toEqual([PROPOSED_HEIGHT, 640].sort());
  });
});

describe('aggregation.allowedSigningSubnets', () => {
  const OTHER = new Uint8Array(32).fill(5);

  it('another signing subnet, given or the source chain’s, is refused before any peer is asked (403)', async () => {
    for (const [allowed, req] of [
      [[OTHER], request()],
      [[SUBNET], request({ signingSubnetId: OTHER })],
    ] as const) {
      const peers = peersWith(net);
      const sets = fixedSets(net);
      const err = await rejection(aggregator(peers, { sets, allowedSigningSubnets: allowed }).aggregate(req));
      expect(err).toBeInstanceOf(SigningSubnetNotAllowedError);
      expect(classifyError(err)).toMatchObject({ status: 403, message: expect.stringMatching(/^signing subnet \S+ is not served here \(aggregation.allowedSigningSubnets\)$/) });
      expect(peers.requests).toEqual([]);
      expect(sets.gets).toBe(0);
    }
  });

  it('a refused subnet, given or found by platform.validatedBy, is not in the aggregation’s event (what the status page shows)', async () => {
    for (const [allowed, req] of [
      [[OTHER], request()],
      [[SUBNET], request({ signingSubnetId: OTHER })],
    ] as const) {
      const events: AggregationEvent[] = [];
      const agg = aggregator(peersWith(net), { allowedSigningSubnets: allowed, events: { onAggregation: (e) => events.push(e) } });
      expect(await rejection(agg.aggregate(req))).toBeInstanceOf(SigningSubnetNotAllowedError);
      expect(events).toEqual([expect.objectContaining({ outcome: 'error', error: 'SigningSubnetNotAllowedError' })]);
      expect(events[0]!.subnetId).toBeUndefined();
    }
  });

  it('an allowed one signs as usual', async () => {
    const peers = peersWith(net);
    expectValid(await aggregator(peers, { allowedSigningSubnets: [OTHER, SUBNET] }).aggregate(request()));
  });
});

describe('a request that joins another’s collection', () => {
  it('still answers by its own deadline', async () => {
    const peers = peersWith(net, net.validators.map((v) => [v.pkHex, { kind: 'honest', delayMs: 400 }]));
    const agg = aggregator(peers);
    const req = request();
    const first = agg.aggregate(req, { deadline: agg.startDeadline(2_000) });
    const short = agg.startDeadline(150);
    const err = await rejection(agg.aggregate({ ...req }, { deadline: short }));
    short.dispose();
    expect(err).toBeInstanceOf(DeadlineExceededError);
    expect((err as Error).message).toBe('the aggregation deadline of 150 ms passed while an identical request’s aggregation was under way');
    // The first request's collection was not cut short by the second leaving.
    expectValid(await first);
    expect(new Set(peers.requests).size).toBe(peers.requests.length);
  });
});
