// Whom a collection asks, and when: the validators it has no signature for, heaviest first, only
// as many as the missing weight needs plus a hedge, more as answers fail or are slow; requests
// sent a slice per turn of the event loop, cancelled in groups when the collection ends. It knows
// requests and weights, not signatures: what came back goes to the collection (collection.ts).
import { setMaxListeners } from 'node:events';
import type { CanonicalSet } from '../validators/canonical-set.js';
import type { CollectionStats } from './errors.js';
import { isTimeout, REQUEST_CANCELLED, type PeerAnswer, type PeerSource, type SignatureRequest } from './peer-source.js';
import { heaviestOrder, Tally } from './weights.js';

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

/** Requests sent in one turn of the event loop (see topUp). */
const FAN_OUT_SLICE = 100;

/** Requests sharing one AbortSignal (see nextSignal). */
const ABORT_GROUP = 32;

/** A request that ended without a signature. */
export type NoSignature = 'refused' | 'timeout' | 'error';

/** What the fan-out tells its collection. */
interface FanOutEvents {
  /** A peer answered with a signature (not checked yet). */
  signature(index: number, signature: Uint8Array): void;
  /** A request ended without one. */
  noSignature(result: NoSignature): void;
  /** A request went unanswered past the hedge delay: the weight on its way dropped. */
  slow(): void;
  /** Requests are left to send on a later turn of the event loop. */
  later(): void;
}

interface FanOutInput {
  set: CanonicalSet;
  request: SignatureRequest;
  /** Validators whose signature the collection already has (from the cache): never asked. */
  alreadyHave(pkHex: string): boolean;
  targetWeight: bigint;
  requestTimeoutMs: number;
  /** Epoch ms: no request outlives it. */
  deadlineAt: number;
  options: FanOutOptions;
}

interface Outstanding {
  slow: boolean;
  hedgeTimer: NodeJS.Timeout | undefined;
}

export class FanOut {
  private readonly set: CanonicalSet;
  /** Validators to ask, heaviest first; `next` is the first not yet asked. */
  private readonly order: number[];
  private next = 0;
  private readonly outstanding = new Map<number, Outstanding>();
  /** Outstanding requests not yet considered slow: the weight on its way. */
  private readonly onTheirWay = new Tally();
  private readonly extraWeight: bigint;
  /** Cancel the outstanding requests at the end; one per ABORT_GROUP requests. */
  private readonly aborts: AbortController[] = [];
  private asks = 0;
  private closed = false;

  constructor(
    private readonly input: FanOutInput,
    private readonly peers: PeerSource,
    /** The collection's counts: asked, answered, not connected, not asked are the fan-out's. */
    private readonly stats: CollectionStats,
    private readonly events: FanOutEvents,
  ) {
    const { set } = input;
    this.set = set;
    const percent = BigInt(Math.max(0, Math.min(100, Math.round(input.options.extraWeightPercent))));
    this.extraWeight = (set.totalWeight * percent) / 100n;
    this.order = heaviestOrder(set).filter((i) => !input.alreadyHave(set.validators[i]!.publicKeyHex));
  }

  /** Every validator was asked and none is outstanding: no signature can come any more. */
  get exhausted(): boolean {
    return this.outstanding.size === 0 && this.next >= this.order.length;
  }

  /**
   * Asks more validators (heaviest first) while the weight in hand (signed, or arrived and being
   * checked) plus the weight on its way falls short of the target plus the hedge. Weight in hand
   * that reaches the target asks nobody: a repeat request served from the cache costs no round trip.
   */
  topUp(inHand: { weight: bigint; signers: number }): void {
    const { targetWeight } = this.input;
    let asked = 0;
    while (!this.closed && this.next < this.order.length) {
      const signerInHand = inHand.signers > 0;
      if (inHand.weight >= targetWeight && signerInHand) return;
      const enoughOnItsWay = inHand.weight + this.onTheirWay.weight >= targetWeight + this.extraWeight;
      if (enoughOnItsWay && (signerInHand || this.onTheirWay.count > 0)) return;
      if (asked++ === FAN_OUT_SLICE) {
        // The rest goes out on the next turn of the event loop, after the answers that arrived
        // meanwhile have been read and handed to the workers: sending to 1,000 validators at
        // once holds the event loop for ~30 ms, while the heaviest, asked first, already answer.
        this.events.later();
        return;
      }
      this.ask(this.order[this.next++]!);
    }
  }

  /** A validator whose cached signature failed its check: asked next. */
  askAgain(index: number): void {
    this.order.splice(this.next, 0, index);
  }

  /**
   * The deadline: collecting stops. Returns how many requests were outstanding (they count as
   * timed out) and cancels them.
   */
  expire(): number {
    const outstanding = this.outstanding.size;
    this.closed = true;
    this.clearOutstanding();
    this.abortAll();
    return outstanding;
  }

  /** The validators never asked, counted as not asked (connected) or not connected. */
  countUnasked(): void {
    for (const index of this.order.slice(this.next)) {
      if (this.peers.isConnected(this.set.validators[index]!.publicKeyHex)) this.stats.notAsked++;
      else this.stats.notConnected++;
    }
    this.next = this.order.length;
  }

  /**
   * The collection ended: no more requests, and the outstanding ones are cancelled after the
   * caller has had its answer (on the next turn of the event loop, so the result, and the HTTP
   * response built from it, goes first).
   */
  end(): void {
    this.closed = true;
    const cancel = this.outstanding.size > 0;
    this.clearOutstanding();
    if (cancel) setImmediate(() => this.abortAll());
  }

  private ask(index: number): void {
    const v = this.set.validators[index]!;
    if (!this.peers.isConnected(v.publicKeyHex)) {
      this.stats.notConnected++;
      return;
    }
    this.stats.asked++;
    const timeoutMs = Math.max(1, Math.min(this.input.requestTimeoutMs, this.input.deadlineAt - Date.now()));
    const entry: Outstanding = { slow: false, hedgeTimer: undefined };
    const { hedgeDelayMs } = this.input.options;
    if (hedgeDelayMs < timeoutMs) entry.hedgeTimer = setTimeout(() => this.onSlow(index), hedgeDelayMs);
    this.outstanding.set(index, entry);
    this.onTheirWay.add(v.weight);
    let answer: Promise<PeerAnswer>;
    try {
      answer = this.peers.request(v.publicKeyHex, this.input.request, { timeoutMs, signal: this.nextSignal() });
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
  private settle(index: number): boolean {
    const entry = this.outstanding.get(index);
    if (!entry) return false;
    clearTimeout(entry.hedgeTimer);
    this.outstanding.delete(index);
    if (!entry.slow) this.onTheirWay.remove(this.set.validators[index]!.weight);
    return true;
  }

  private clearOutstanding(): void {
    for (const index of [...this.outstanding.keys()]) this.settle(index);
  }

  private onSlow(index: number): void {
    const entry = this.outstanding.get(index);
    if (!entry || entry.slow || this.closed) return;
    entry.slow = true;
    this.onTheirWay.remove(this.set.validators[index]!.weight);
    this.events.slow();
  }

  private onAnswer(index: number, answer: PeerAnswer): void {
    if (!this.settle(index) || this.closed) return;
    if (answer.kind === 'refused') {
      this.events.noSignature('refused');
    } else {
      this.stats.answered++;
      this.events.signature(index, answer.signature);
    }
  }

  private onRequestError(index: number, err: unknown): void {
    if (!this.settle(index) || this.closed) return;
    this.events.noSignature(isTimeout(err) ? 'timeout' : 'error');
  }
}
