// One aggregation's collection: ask the signer peers (heaviest first, only as many as the missing
// weight needs plus a hedge, more as answers fail or are slow), fold each signature into a running
// aggregate in the worker pool as it arrives, and finish with one pairing once the target weight
// has signed. A failed pairing is resolved by bisection: the bad signatures are dropped, their
// peers penalized, and collecting goes on. Lives only as long as its request.
import { setMaxListeners } from 'node:events';
import type { UnsignedMessage } from '../warp/unsigned-message.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import { PeerRequestError, type PeerAnswer, type SignatureRequest } from '../peers/pool.js';
import type { RunningSum } from '../bls-pool/messages.js';
import type { BlsVerifier } from '../bls-pool/verifier.js';
import type { CollectionStats } from './errors.js';

/** What the collection needs from the peer pool (an interface so tests and the bench can wrap it). */
export interface PeerSource {
  isConnected(pkHex: string): boolean;
  /** Cancelled through `signal`, the request rejects with the signal's reason (REQUEST_CANCELLED): no new Error. */
  request(pkHex: string, req: SignatureRequest, opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<PeerAnswer>;
  penalize(pkHex: string, reason: string): void;
}

export type Strategy = 'warpgate' | 'perSignatureVerify';
export type ResponseResult = 'valid' | 'invalid' | 'refused' | 'timeout' | 'error';

/** How widely a collection asks. */
export interface FanOutOptions {
  /**
   * Weight asked for beyond what is still missing, in percent of the total weight: the hedge
   * against peers that refuse, fail or are slow. 100 asks every connected validator at once.
   */
  extraWeightPercent: number;
  /** A request unanswered for this long stops counting as weight on its way, so more validators are asked. */
  hedgeDelayMs: number;
}

/**
 * Asking the missing weight plus 20% of the total covers the heavy validators that usually
 * complete a quorum while sparing the light tail; a request unanswered after 250 ms (well past a
 * healthy validator's round trip) gets a stand-in.
 */
export const DEFAULT_FAN_OUT: FanOutOptions = { extraWeightPercent: 20, hedgeDelayMs: 250 };

export interface CollectionInput {
  message: UnsignedMessage;
  justification: Uint8Array;
  set: CanonicalSet;
  /** Stop as soon as this weight has signed (and verified). */
  targetWeight: bigint;
  /** When no more signatures can come (deadline, or everyone answered), succeed with at least this weight. */
  minimumWeight: bigint;
  /** When collecting stops; the caller keeps some time after it for the final check. */
  deadlineAt: number;
  /**
   * When the collection must have ended, whatever it waits for (a final check queued behind a
   * busy worker pool): past it, it rejects with CollectionLate. Default: no such bound.
   */
  answerBy?: number;
  requestTimeoutMs: number;
  cached: ReadonlyMap<string, Uint8Array>;
  strategy: Strategy;
  fanOut?: FanOutOptions;
  onResponse?: (result: ResponseResult) => void;
  /** A cached signature failed its check (it must leave the cache). */
  onCachedInvalid?: (pkHex: string) => void;
}

export interface CollectionOutcome {
  /** Canonical indices that signed, ascending, and their aggregate signature. */
  signers: number[];
  signature: Uint8Array;
  signedWeight: bigint;
  /** Verified signatures by key hex, for the signature cache (see `confirmed`). */
  verified: Map<string, Uint8Array>;
  stats: CollectionStats;
  reachedTarget: boolean;
}

/** A batch folds at most this many signatures, so a backlog is spread over the threads and heavy ones go first. */
const MAX_BATCH = 128;

/** Requests sent in one turn of the event loop (see askLater). */
const FAN_OUT_SLICE = 100;

/** Requests sharing one AbortSignal (see nextSignal). */
const ABORT_GROUP = 32;

/**
 * What every request still outstanding when a collection ends is cancelled with: one object for
 * all of them, made once, since a collection may end with hundreds outstanding and an Error (with
 * its stack) per request cost milliseconds of the event loop.
 */
export const REQUEST_CANCELLED: PeerRequestError = new PeerRequestError('aborted', '', 'the aggregation no longer needs this signature');

interface Arrival {
  index: number;
  sig: Uint8Array;
}

/** A running aggregate and the canonical indices (and their weight) folded into it. */
interface Running {
  part: RunningSum;
  members: number[];
  weight: bigint;
}

interface Outstanding {
  slow: boolean;
  hedgeTimer: NodeJS.Timeout | undefined;
}

export class Collection {
  private readonly stats: CollectionStats;
  /** Cancel the outstanding requests at the end; one per ABORT_GROUP requests. */
  private readonly aborts: AbortController[] = [];
  private asks = 0;
  private readonly fanOut: FanOutOptions;
  private readonly extraWeight: bigint;
  /** Validators to ask (not in the cache), heaviest first; `nextToAsk` is the first not yet asked. */
  private order: number[];
  private nextToAsk = 0;
  private readonly outstanding = new Map<number, Outstanding>();
  /** Weight and number of outstanding requests not yet considered slow. */
  private outstandingWeight = 0n;
  private fastOutstanding = 0;
  /** Signatures waiting for their per-arrival check. */
  private readonly pending: Arrival[] = [];
  /** Weight and number of signatures waiting for, or in, their per-arrival check. */
  private pendingWeight = 0n;
  private pendingCount = 0;
  /** Signatures that passed their per-arrival check, by canonical index. */
  private readonly accepted = new Map<number, Uint8Array>();
  private acceptedWeight = 0n;
  /** Running aggregates not being merged or finalized right now (warpgate strategy). */
  private readonly running: Running[] = [];
  private runningWeight = 0n;
  /** Indices whose signature came from a peer in this collection (not from the cache). */
  private readonly live = new Set<number>();
  /**
   * Indices whose signature is verified: part of an aggregate whose pairing check passed, of a
   * group that passed a random-scalar batch check, or verified alone. (Colluding signers could
   * pass the aggregate check with bad signatures that cancel out; should such a cached signature
   * later be used without its partner, the failed check's bisection finds it and it leaves the
   * cache.)
   */
  private readonly confirmed = new Set<number>();
  private checksInFlight = 0;
  private pumpScheduled = false;
  private finalizing = false;
  private done = false;
  private deadlinePassed = false;
  private timer: NodeJS.Timeout | undefined;
  private lateTimer: NodeJS.Timeout | undefined;
  private readonly request: SignatureRequest;
  private resolve!: (o: CollectionOutcome) => void;
  private reject!: (e: unknown) => void;

  constructor(
    private readonly input: CollectionInput,
    private readonly peers: PeerSource,
    private readonly pool: BlsVerifier,
  ) {
    const { set, cached } = input;
    this.stats = {
      validators: set.validators.length,
      notConnected: 0,
      notAsked: 0,
      asked: 0,
      answered: 0,
      refused: 0,
      timedOut: 0,
      invalid: 0,
      failed: 0,
      fromCache: 0,
    };
    this.fanOut = input.fanOut ?? DEFAULT_FAN_OUT;
    this.extraWeight = (set.totalWeight * BigInt(Math.max(0, Math.min(100, Math.round(this.fanOut.extraWeightPercent))))) / 100n;
    this.request = { message: input.message.bytes, justification: input.justification };
    // Heaviest first: the canonical order is by key, not weight.
    this.order = set.validators
      .map((_, i) => i)
      .filter((i) => !cached.has(set.validators[i]!.publicKeyHex))
      .sort((a, b) => this.byWeightDesc(a, b));
  }

  run(): Promise<CollectionOutcome> {
    return new Promise<CollectionOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.timer = setTimeout(() => this.onDeadline(), Math.max(0, this.input.deadlineAt - Date.now()));
      if (this.input.answerBy !== undefined) {
        this.lateTimer = setTimeout(() => this.onLate(), Math.max(0, this.input.answerBy - Date.now()));
      }
      const { set, cached } = this.input;
      for (const [i, v] of set.validators.entries()) {
        const hit = cached.get(v.publicKeyHex);
        if (hit) {
          this.stats.fromCache++;
          this.arrive(i, hit);
        }
      }
      this.pump();
    });
  }

  private weightOf(index: number): bigint {
    return this.input.set.validators[index]!.weight;
  }

  private byWeightDesc(a: number, b: number): number {
    const wa = this.weightOf(a);
    const wb = this.weightOf(b);
    return wa === wb ? a - b : wa > wb ? -1 : 1;
  }

  // ---- asking peers -------------------------------------------------------------------------

  /**
   * Asks more validators (heaviest first) while the weight in hand (signed, or arrived and being
   * checked) plus the weight on its way falls short of the target plus the hedge. Weight in hand
   * that reaches the target asks nobody: a repeat request served from the cache costs no round trip.
   */
  private topUp(): void {
    const { targetWeight } = this.input;
    let asked = 0;
    while (!this.done && !this.deadlinePassed && this.nextToAsk < this.order.length) {
      const inHand = this.acceptedWeight + this.pendingWeight;
      const signerInHand = this.accepted.size + this.pendingCount > 0;
      if (inHand >= targetWeight && signerInHand) return;
      const enoughOnItsWay = inHand + this.outstandingWeight >= targetWeight + this.extraWeight;
      if (enoughOnItsWay && (signerInHand || this.fastOutstanding > 0)) return;
      if (asked++ === FAN_OUT_SLICE) {
        // The rest goes out on the next turn of the event loop, after the answers that arrived
        // meanwhile have been read and handed to the workers: sending to 1,000 validators at
        // once holds the event loop for ~30 ms, while the heaviest, asked first, already answer.
        this.pumpSoon();
        return;
      }
      this.ask(this.order[this.nextToAsk++]!);
    }
  }

  private ask(index: number): void {
    const v = this.input.set.validators[index]!;
    if (!this.peers.isConnected(v.publicKeyHex)) {
      this.stats.notConnected++;
      return;
    }
    this.stats.asked++;
    const timeoutMs = Math.max(1, Math.min(this.input.requestTimeoutMs, this.input.deadlineAt - Date.now()));
    const entry: Outstanding = { slow: false, hedgeTimer: undefined };
    if (this.fanOut.hedgeDelayMs < timeoutMs) {
      entry.hedgeTimer = setTimeout(() => this.onSlow(index), this.fanOut.hedgeDelayMs);
    }
    this.outstanding.set(index, entry);
    this.outstandingWeight += v.weight;
    this.fastOutstanding++;
    let answer: Promise<PeerAnswer>;
    try {
      answer = this.peers.request(v.publicKeyHex, this.request, { timeoutMs, signal: this.nextSignal() });
    } catch (err) {
      answer = Promise.reject(err);
    }
    answer.then(
      (a) => this.onAnswer(index, a),
      (err: unknown) => this.onRequestError(index, err),
    );
  }

  /**
   * The signal for the next request. Requests share one per ABORT_GROUP: with a single signal for
   * all, every add and remove of a request's listener walks the whole listener list
   * (EventTarget), measured at ~11 ms of the event loop per aggregation at 1,000 validators
   * (~3 ms grouped; bench/quorum.ts --cpu-prof).
   */
  private nextSignal(): AbortSignal {
    if (this.asks++ % ABORT_GROUP === 0) {
      const c = new AbortController();
      // One listener per request of the group: not a leak.
      setMaxListeners(ABORT_GROUP + 10, c.signal);
      this.aborts.push(c);
    }
    return this.aborts[this.aborts.length - 1]!.signal;
  }

  private abortAll(): void {
    for (const c of this.aborts) c.abort(REQUEST_CANCELLED);
  }

  /** Removes a request from the outstanding ones; false when it was already settled (deadline, end). */
  private settleRequest(index: number): boolean {
    const entry = this.outstanding.get(index);
    if (!entry) return false;
    clearTimeout(entry.hedgeTimer);
    this.outstanding.delete(index);
    if (!entry.slow) {
      this.outstandingWeight -= this.weightOf(index);
      this.fastOutstanding--;
    }
    return true;
  }

  private onSlow(index: number): void {
    const entry = this.outstanding.get(index);
    if (!entry || entry.slow || this.done) return;
    entry.slow = true;
    this.outstandingWeight -= this.weightOf(index);
    this.fastOutstanding--;
    this.topUp();
  }

  private onAnswer(index: number, answer: PeerAnswer): void {
    if (!this.settleRequest(index) || this.done) return;
    if (answer.kind === 'refused') {
      this.stats.refused++;
      this.input.onResponse?.('refused');
    } else {
      this.stats.answered++;
      this.live.add(index);
      this.arrive(index, answer.signature);
    }
    this.pumpSoon();
  }

  private onRequestError(index: number, err: unknown): void {
    if (!this.settleRequest(index) || this.done) return;
    if (err instanceof PeerRequestError && err.reason === 'timeout') {
      this.stats.timedOut++;
      this.input.onResponse?.('timeout');
    } else {
      this.stats.failed++;
      this.input.onResponse?.('error');
    }
    this.pumpSoon();
  }

  /**
   * Answers read in one pass of the event loop go to the workers together: fewer, larger tasks
   * (handing a task to a worker costs ~0.1 ms of CPU). Measured with bench/quorum.ts, see README "Performance".
   */
  private pumpSoon(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Collecting stops: what is outstanding counts as timed out and is cancelled. */
  private onDeadline(): void {
    if (this.done) return;
    this.deadlinePassed = true;
    for (const index of [...this.outstanding.keys()]) {
      this.settleRequest(index);
      this.stats.timedOut++;
      this.input.onResponse?.('timeout');
    }
    this.abortAll();
    this.settle();
  }

  /** The answer is due and the collection has not ended (a check still waits for a worker). */
  private onLate(): void {
    if (this.done) return;
    const verified = this.verifiedSignatures(this.confirmed);
    this.finish();
    this.reject(new CollectionLate(verified));
  }

  // ---- checking signatures ------------------------------------------------------------------

  private arrive(index: number, sig: Uint8Array): void {
    this.pending.push({ index, sig });
    this.pendingWeight += this.weightOf(index);
    this.pendingCount++;
  }

  /** Sends waiting signatures to the workers (heaviest first, one batch per free thread), then settles. */
  private pump(): void {
    if (this.done) return;
    const parallel = this.pool.suggestedParallelism();
    if (this.pending.length > 0 && this.checksInFlight < parallel) {
      this.pending.sort((a, b) => this.byWeightDesc(a.index, b.index));
      const ready = this.pending.splice(0, this.needed());
      while (ready.length > 0 && this.checksInFlight < parallel) {
        const free = parallel - this.checksInFlight;
        const size = Math.min(MAX_BATCH, Math.ceil(ready.length / free));
        this.check(ready.splice(0, size));
      }
      this.pending.unshift(...ready);
    }
    this.settle();
  }

  /**
   * warpgate: how many of the waiting signatures (heaviest first) the target still needs beyond
   * the weight checked or being checked. The rest wait in reserve and are checked only if a check
   * fails: when answers arrive faster than the workers check them (1,000 validators), checking
   * ones that end up unused only delays the answer (measured: ~590 signatures checked per
   * aggregation instead of ~350, median overhead 137 → ~60 ms under load; README "Performance").
   * perSignatureVerify checks every answer, as icm-services does.
   */
  private needed(): number {
    if (this.input.strategy !== 'warpgate') return this.pending.length;
    let queued = 0n;
    for (const a of this.pending) queued += this.weightOf(a.index);
    let missing = this.input.targetWeight - this.acceptedWeight - (this.pendingWeight - queued);
    // A signed message needs one signer even when the target is 0.
    const noneYet = this.accepted.size === 0 && this.pendingCount === this.pending.length;
    let take = 0;
    while (take < this.pending.length && (missing > 0n || (noneYet && take === 0))) missing -= this.weightOf(this.pending[take++]!.index);
    return take;
  }

  private check(batch: Arrival[]): void {
    this.checksInFlight++;
    const validators = this.input.set.validators;
    const sigs = batch.map((a) => a.sig);
    const pks = batch.map((a) => validators[a.index]!.publicKey.bytes);
    const work =
      this.input.strategy === 'warpgate' ? this.foldBatch(batch, sigs, pks) : this.verifyBatch(batch, sigs, pks);
    work
      .catch((err: unknown) => this.fail(err))
      .finally(() => {
        this.checksInFlight--;
        this.pump();
      });
  }

  /** warpgate: subgroup checks and a plain sum into one running aggregate (merging the idle ones). */
  private async foldBatch(batch: Arrival[], sigs: Uint8Array[], pks: Uint8Array[]): Promise<void> {
    const base = this.takeRunning();
    const r = await this.pool.fold({ sigs, pks, base: base.map((b) => b.part) });
    if (this.done) return;
    const rejected = new Set(r.rejected);
    const members = base.flatMap((b) => b.members);
    let weight = base.reduce((sum, b) => sum + b.weight, 0n);
    batch.forEach((a, i) => {
      const w = this.weightOf(a.index);
      this.pendingWeight -= w;
      this.pendingCount--;
      if (rejected.has(i)) {
        this.markInvalid(a.index, 'the signature is not a valid G2 point in the subgroup');
        return;
      }
      this.accepted.set(a.index, a.sig);
      this.acceptedWeight += w;
      members.push(a.index);
      weight += w;
    });
    if (r.partial) {
      this.running.push({ part: r.partial, members, weight });
      this.runningWeight += weight;
    }
  }

  /** perSignatureVerify (icm-services' way, for comparison): one full verification per signature. */
  private async verifyBatch(batch: Arrival[], sigs: Uint8Array[], pks: Uint8Array[]): Promise<void> {
    const ok = await this.pool.verifyEach({ message: this.input.message.bytes, sigs, pks });
    if (this.done) return;
    batch.forEach((a, i) => {
      const w = this.weightOf(a.index);
      this.pendingWeight -= w;
      this.pendingCount--;
      if (!ok[i]) {
        this.markInvalid(a.index, 'the signature does not verify');
        return;
      }
      this.accepted.set(a.index, a.sig);
      this.acceptedWeight += w;
      this.confirm(a.index);
    });
  }

  private takeRunning(): Running[] {
    const taken = this.running.splice(0);
    for (const r of taken) this.runningWeight -= r.weight;
    return taken;
  }

  private confirm(index: number): void {
    if (this.confirmed.has(index)) return;
    this.confirmed.add(index);
    if (this.live.has(index)) this.input.onResponse?.('valid');
  }

  private markInvalid(index: number, reason: string): void {
    const pkHex = this.input.set.validators[index]!.publicKeyHex;
    if (this.live.has(index)) {
      this.stats.invalid++;
      this.input.onResponse?.('invalid');
      this.peers.penalize(pkHex, reason);
    } else {
      // A cached signature is ours, not the peer's: no penalty, but it leaves the cache and the
      // validator is asked next.
      this.input.onCachedInvalid?.(pkHex);
      this.order.splice(this.nextToAsk, 0, index);
    }
  }

  // ---- deciding -----------------------------------------------------------------------------

  /** Weight whose signatures are ready for the final check. */
  private readyWeight(): bigint {
    return this.input.strategy === 'warpgate' ? this.runningWeight : this.acceptedWeight;
  }

  private readySigners(): number {
    return this.input.strategy === 'warpgate' ? this.running.reduce((n, r) => n + r.members.length, 0) : this.accepted.size;
  }

  /** No signature can arrive any more: the deadline passed, or every validator was asked and answered. */
  private noMoreComing(): boolean {
    if (this.deadlinePassed) return true;
    return this.outstanding.size === 0 && this.nextToAsk >= this.order.length;
  }

  /**
   * The one decision point, called after every event: finish once the target weight is ready;
   * otherwise ask more; once nothing more can come, finish with the minimum or fail with counts.
   * A signed message always has at least one signer, even at quorum 0.
   */
  private settle(): void {
    if (this.done || this.finalizing) return;
    if (this.readyWeight() >= this.input.targetWeight && this.readySigners() > 0) {
      void this.finalize();
      return;
    }
    this.topUp();
    if (this.checksInFlight > 0 || this.pending.length > 0) return;
    if (!this.noMoreComing()) return;
    // Unchecked running aggregates are checked even on the way to a failure: the weight counted
    // must be real, the counts must name the invalid signatures, and good ones get cached.
    const unconfirmed = this.running.some((r) => r.members.some((i) => !this.confirmed.has(i)));
    if ((this.readyWeight() >= this.input.minimumWeight && this.readySigners() > 0) || unconfirmed) {
      void this.finalize();
      return;
    }
    this.shortfall();
  }

  private async finalize(): Promise<void> {
    this.finalizing = true;
    let keepGoing = true;
    try {
      keepGoing = this.input.strategy === 'warpgate' ? await this.finalizeRunning() : await this.finalizeVerified();
    } catch (err) {
      this.fail(err);
      return;
    } finally {
      this.finalizing = false;
    }
    if (keepGoing) this.pump();
  }

  /** perSignatureVerify: every accepted signature was verified on arrival; sum them. */
  private async finalizeVerified(): Promise<boolean> {
    const signers = [...this.accepted.keys()].sort((a, b) => a - b);
    const weight = this.acceptedWeight;
    if (weight >= this.input.targetWeight || (this.noMoreComing() && weight >= this.input.minimumWeight)) {
      const signature = await this.pool.aggregate(signers.map((i) => this.accepted.get(i)!));
      this.succeed(signers, signature, weight);
    } else {
      this.shortfall();
    }
    return false;
  }

  /**
   * warpgate: one pairing of the summed keys against the summed signatures, the check avalanchego
   * makes of the signed message. On failure, random-scalar bisection
   * finds the bad signatures; they are dropped and their peers penalized, the rest are folded
   * again, and collecting continues. Returns whether collecting continues.
   */
  private async finalizeRunning(): Promise<boolean> {
    const { message, set } = this.input;
    const parts = this.takeRunning();
    const members = parts.flatMap((p) => p.members);
    const weight = parts.reduce((sum, p) => sum + p.weight, 0n);
    const result = await this.pool.finalCheck({
      message: message.bytes,
      parts: parts.map((p) => p.part),
      signatures: () => ({
        sigs: members.map((i) => this.accepted.get(i)!),
        pks: members.map((i) => set.validators[i]!.publicKey.bytes),
      }),
    });
    if (this.done) return false;
    if (result.valid) {
      for (const i of members) this.confirm(i);
      const signers = [...members].sort((a, b) => a - b);
      if (weight >= this.input.targetWeight || (this.noMoreComing() && weight >= this.input.minimumWeight)) {
        this.succeed(signers, result.signature, weight);
        return false;
      }
      if (this.noMoreComing()) {
        this.shortfall();
        return false;
      }
      // Checked early (no more was expected then); keep it and go on collecting.
      this.running.push(...parts);
      this.runningWeight += weight;
      return true;
    }
    const bad = new Set(result.invalid.map((p) => members[p]!));
    for (const i of bad) {
      this.accepted.delete(i);
      this.acceptedWeight -= this.weightOf(i);
      this.markInvalid(i, 'the signature does not verify for this message and key');
    }
    const good = members.filter((i) => !bad.has(i));
    // Every good one sat in a group that passed a batch check: proven valid.
    for (const i of good) this.confirm(i);
    if (result.rest) {
      const w = good.reduce((sum, i) => sum + this.weightOf(i), 0n);
      this.running.push({ part: result.rest, members: good, weight: w });
      this.runningWeight += w;
    }
    return true;
  }

  private verifiedSignatures(indices: Iterable<number>): Map<string, Uint8Array> {
    const verified = new Map<string, Uint8Array>();
    for (const i of indices) {
      const sig = this.accepted.get(i);
      if (sig && this.confirmed.has(i)) verified.set(this.input.set.validators[i]!.publicKeyHex, sig);
    }
    return verified;
  }

  private succeed(signers: number[], signature: Uint8Array, signedWeight: bigint): void {
    if (this.done) return;
    const verified = this.verifiedSignatures(signers);
    this.finish();
    this.resolve({
      signers,
      signature,
      signedWeight,
      verified,
      stats: this.stats,
      reachedTarget: signedWeight >= this.input.targetWeight,
    });
  }

  private shortfall(): void {
    if (this.done) return;
    for (const index of this.order.slice(this.nextToAsk)) {
      if (this.peers.isConnected(this.input.set.validators[index]!.publicKeyHex)) this.stats.notAsked++;
      else this.stats.notConnected++;
    }
    this.nextToAsk = this.order.length;
    let signedWeight = 0n;
    for (const i of this.confirmed) if (this.accepted.has(i)) signedWeight += this.weightOf(i);
    const why = this.deadlinePassed ? 'by the deadline' : 'after every connected validator was asked';
    const verified = this.verifiedSignatures(this.confirmed);
    this.finish();
    this.reject(new QuorumShortfall(signedWeight, this.stats, why, verified));
  }

  private fail(err: unknown): void {
    if (this.done) return;
    this.finish();
    this.reject(err);
  }

  /**
   * Ends the collection: stops the timers and cancels every outstanding request, after the
   * caller has had its answer: the cancellations wait for the next turn of the event loop, so
   * the result (and the HTTP response built from it) goes first.
   */
  private finish(): void {
    this.done = true;
    clearTimeout(this.timer);
    clearTimeout(this.lateTimer);
    for (const entry of this.outstanding.values()) clearTimeout(entry.hedgeTimer);
    const cancel = this.outstanding.size > 0;
    this.outstanding.clear();
    this.outstandingWeight = 0n;
    this.fastOutstanding = 0;
    if (cancel) setImmediate(() => this.abortAll());
  }
}

/** Internal: the answer was due before the collection could end; the aggregator answers 504. */
export class CollectionLate extends Error {
  constructor(
    /** Signatures verified on the way: worth caching for a retry. */
    readonly verified: Map<string, Uint8Array>,
  ) {
    super('the collection did not end by its deadline');
  }
}

/** Internal: the aggregator turns this into a QuorumNotReachedError with the set's figures. */
export class QuorumShortfall extends Error {
  constructor(
    readonly signedWeight: bigint,
    readonly stats: CollectionStats,
    readonly why: string,
    /** Signatures verified on the way: worth caching for a retry. */
    readonly verified: Map<string, Uint8Array>,
  ) {
    super(`quorum not reached ${why}`);
  }
}
