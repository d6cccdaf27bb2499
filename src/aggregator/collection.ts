// One aggregation's collection, the coordinator: the fan-out asks the signer peers (fan-out.ts),
// every signature goes into the ledger (signature-ledger.ts) and through the verification's
// checks (verification.ts), and after every event the collection decides: finish once the target
// weight is verified, ask more, or once nothing more can come, finish with the minimum or fail
// with the counts. Lives only as long as its request.
import type { UnsignedMessage } from '../warp/unsigned-message.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import type { BlsVerifier } from '../bls-pool/verifier.js';
import type { CollectionStats } from './errors.js';
import { FanOut, type FanOutOptions, type NoSignature } from './fan-out.js';
import type { PeerSource } from './peer-source.js';
import { SignatureLedger } from './signature-ledger.js';
import type { AggregateCheck, Verification, VerificationStrategy } from './verification.js';

/** What became of one peer's answer (the signature-responses metric). */
export type ResponseResult = 'valid' | 'invalid' | NoSignature;

interface CollectionInput {
  message: UnsignedMessage;
  justification: Uint8Array;
  set: CanonicalSet;
  /** Stop as soon as this weight has signed (and verified). */
  targetWeight: bigint;
  /** The signed message carries the fewest signers that reach the target (verification.ts). */
  minimizeSigners: boolean;
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
  verification: VerificationStrategy;
  fanOut: FanOutOptions;
  onResponse?: (result: ResponseResult) => void;
  /** A cached signature failed its check (it must leave the cache). */
  onCachedInvalid?: (pkHex: string) => void;
}

interface CollectionOutcome {
  /** Canonical indices that signed, ascending, and their aggregate signature. */
  signers: number[];
  signature: Uint8Array;
  signedWeight: bigint;
  /** Signatures proven valid: the signers, and any an earlier bisection proved among those left out. */
  signaturesProven: number;
  /** Signatures ready but left out of the message by the fewest signers (verification.ts). */
  signaturesLeftOut: number;
  /** Time spent checking the fewest signers' own aggregates (verification.ts), ms. */
  subsetCheckMs: number;
  /** Proven signatures by key hex, for the signature cache. */
  verified: Map<string, Uint8Array>;
  stats: CollectionStats;
  reachedTarget: boolean;
  /**
   * Milliseconds from the first request until the signatures that complete the target weight had
   * all arrived (cached ones count as there from the start): what an aggregator adding no time of
   * its own would have taken. Undefined when the target weight was not reached.
   */
  idealMs: number | undefined;
}

/** Which count each kind of response adds to ('valid' adds none: `answered` counted it). */
const COUNTED: Record<ResponseResult, keyof CollectionStats | null> = {
  valid: null,
  invalid: 'invalid',
  refused: 'refused',
  timeout: 'timedOut',
  error: 'failed',
};

export class Collection {
  private readonly stats: CollectionStats;
  private readonly fanOut: FanOut;
  private readonly ledger: SignatureLedger;
  private readonly verification: Verification;
  /** Indices whose signature came from a peer in this collection (not from the cache), and when it arrived (ms after run()). */
  private readonly live = new Map<number, number>();
  private startedAt = 0;
  private stepScheduled = false;
  private subsetCheckMs = 0;
  private finalizing = false;
  private done = false;
  private deadlinePassed = false;
  private timer: NodeJS.Timeout | undefined;
  private lateTimer: NodeJS.Timeout | undefined;
  private resolve!: (o: CollectionOutcome) => void;
  private reject!: (e: unknown) => void;

  constructor(
    private readonly input: CollectionInput,
    private readonly peers: PeerSource,
    pool: BlsVerifier,
  ) {
    const { set, cached } = input;
    this.stats = { validators: set.validators.length, notConnected: 0, notAsked: 0, asked: 0, answered: 0, refused: 0, notYet: 0, timedOut: 0, invalid: 0, failed: 0, fromCache: 0 };
    this.fanOut = new FanOut(
      {
        set,
        request: { message: input.message.bytes, justification: input.justification },
        alreadyHave: (pkHex) => cached.has(pkHex),
        targetWeight: input.targetWeight,
        requestTimeoutMs: input.requestTimeoutMs,
        deadlineAt: input.deadlineAt,
        options: input.fanOut,
      },
      peers,
      this.stats,
      {
        signature: (index, sig) => {
          this.live.set(index, performance.now() - this.startedAt);
          const before = this.ledger.inHand().weight;
          this.ledger.add(index, sig);
          // The arrival that brings the weight in hand to the target starts the checks at once:
          // the decision waits on them, not on the other sockets read in this turn.
          if (before < this.input.targetWeight && before + set.validators[index]!.weight >= this.input.targetWeight) this.step();
          else this.stepSoon();
        },
        noSignature: (result) => {
          this.respond(result);
          this.stepSoon();
        },
        slow: () => this.topUp(),
        later: () => this.stepSoon(),
      },
    );
    this.ledger = new SignatureLedger(set, {
      invalid: (index, reason) => this.onInvalid(index, reason),
      proven: (index) => {
        if (this.live.has(index)) this.respond('valid');
      },
      checkDone: () => this.step(),
      checkFailed: (err) => this.fail(err),
    });
    this.verification = input.verification({
      message: input.message.bytes,
      set,
      targetWeight: input.targetWeight,
      minimizeSigners: input.minimizeSigners,
      pool,
      ledger: this.ledger,
    });
  }

  run(): Promise<CollectionOutcome> {
    return new Promise<CollectionOutcome>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.startedAt = performance.now();
      this.timer = setTimeout(() => this.onDeadline(), Math.max(0, this.input.deadlineAt - Date.now()));
      if (this.input.answerBy !== undefined) {
        this.lateTimer = setTimeout(() => this.onLate(), Math.max(0, this.input.answerBy - Date.now()));
      }
      const { set, cached } = this.input;
      for (const [i, v] of set.validators.entries()) {
        const hit = cached.get(v.publicKeyHex);
        if (hit) {
          this.stats.fromCache++;
          this.ledger.add(i, hit);
        }
      }
      this.step();
    });
  }

  private respond(result: ResponseResult): void {
    const counted = COUNTED[result];
    if (counted) this.stats[counted]++;
    this.input.onResponse?.(result);
  }

  private onInvalid(index: number, reason: string): void {
    const pkHex = this.input.set.validators[index]!.publicKeyHex;
    if (this.live.has(index)) {
      this.respond('invalid');
      this.peers.penalize(pkHex, reason);
    } else {
      // A cached signature is ours, not the peer's: no penalty, but it leaves the cache and the
      // validator is asked next.
      this.input.onCachedInvalid?.(pkHex);
      this.fanOut.askAgain(index);
    }
  }

  private topUp(): void {
    if (!this.done && !this.deadlinePassed) this.fanOut.topUp(this.ledger.inHand());
  }

  /**
   * Answers read in one pass of the event loop go to the workers together: fewer, larger tasks
   * (handing a task to a worker costs ~0.1 ms of CPU). Measured with bench/quorum.ts (commit 86f3a6b).
   */
  private stepSoon(): void {
    if (this.stepScheduled) return;
    this.stepScheduled = true;
    setImmediate(() => {
      this.stepScheduled = false;
      this.step();
    });
  }

  /** Starts the checks the waiting signatures need, then decides. */
  private step(): void {
    if (this.done) return;
    this.verification.startChecks(this.noMoreComing());
    this.settle();
  }

  /** Collecting stops: what is outstanding counts as timed out and is cancelled; what waits is checked now. */
  private onDeadline(): void {
    if (this.done) return;
    this.deadlinePassed = true;
    for (let n = this.fanOut.expire(); n > 0; n--) this.respond('timeout');
    this.step();
  }

  /** The answer is due and the collection has not ended (a check still waits for a worker). */
  private onLate(): void {
    if (this.done) return;
    const verified = this.ledger.verified();
    this.finish();
    this.reject(new CollectionLate(verified));
  }

  /** No signature can arrive any more: the deadline passed, or every validator was asked and answered. */
  private noMoreComing(): boolean {
    return this.deadlinePassed || this.fanOut.exhausted;
  }

  /**
   * The one decision point, called after every event: finish once the target weight is ready;
   * otherwise ask more; once nothing more can come, finish with the minimum or fail with counts.
   * A signed message always has at least one signer, even at quorum 0.
   */
  private settle(): void {
    if (this.done || this.finalizing) return;
    const v = this.verification;
    if (v.readyWeight >= this.input.targetWeight && v.readySigners > 0) {
      void this.finalize();
      return;
    }
    this.topUp();
    if (!this.ledger.idle || !this.noMoreComing()) return;
    // Unproven signatures are checked even on the way to a failure: the weight counted must be
    // real, the counts must name the invalid signatures, and good ones get cached.
    if ((v.readyWeight >= this.input.minimumWeight && v.readySigners > 0) || v.unproven) {
      void this.finalize();
      return;
    }
    this.shortfall();
  }

  private async finalize(): Promise<void> {
    this.finalizing = true;
    let check: AggregateCheck;
    try {
      check = await this.verification.finalCheck();
    } catch (err) {
      this.fail(err);
      return;
    } finally {
      this.finalizing = false;
    }
    this.subsetCheckMs += check.subsetCheckMs ?? 0;
    if (this.done) return;
    if (check.valid) {
      const { targetWeight, minimumWeight } = this.input;
      if (check.weight >= targetWeight || (this.noMoreComing() && check.weight >= minimumWeight)) {
        this.succeed(check);
        return;
      }
      // Checked early (no more was expected then): go on collecting, unless nothing more can come.
      if (this.noMoreComing()) {
        this.shortfall();
        return;
      }
    }
    this.step();
  }

  private succeed({ signers, signature, weight, checked, leftOut }: AggregateCheck & { valid: true }): void {
    if (this.done) return;
    // Every proven signature is worth caching, not only those in the message.
    const verified = this.ledger.verified(checked);
    this.finish();
    this.resolve({
      signers,
      signature,
      signedWeight: weight,
      signaturesProven: checked.length,
      signaturesLeftOut: leftOut,
      subsetCheckMs: this.subsetCheckMs,
      verified,
      stats: this.stats,
      reachedTarget: weight >= this.input.targetWeight,
      idealMs: this.idealMs(signers),
    });
  }

  /** See CollectionOutcome.idealMs: the signers by arrival, until their weight reaches the target. */
  private idealMs(signers: number[]): number | undefined {
    const validators = this.input.set.validators;
    const arrivals = signers.map((i) => ({ at: this.live.get(i) ?? 0, weight: validators[i]!.weight })).sort((a, b) => a.at - b.at);
    let weight = 0n;
    for (const { at, weight: w } of arrivals) {
      weight += w;
      if (weight >= this.input.targetWeight) return at;
    }
    return undefined;
  }

  private shortfall(): void {
    if (this.done) return;
    this.fanOut.countUnasked();
    const why = this.deadlinePassed ? 'by the deadline' : 'after every connected validator was asked';
    const signedWeight = this.ledger.provenWeight();
    const verified = this.ledger.verified();
    this.finish();
    this.reject(new QuorumShortfall(signedWeight, this.stats, why, verified));
  }

  private fail(err: unknown): void {
    if (this.done) return;
    this.finish();
    this.reject(err);
  }

  /** Ends the collection: stops the timers, and the outstanding requests are cancelled after the answer. */
  private finish(): void {
    this.done = true;
    clearTimeout(this.timer);
    clearTimeout(this.lateTimer);
    this.ledger.close();
    this.fanOut.end();
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
