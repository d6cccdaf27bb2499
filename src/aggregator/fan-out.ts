// Whom a collection asks, and when: the validators it has no signature for, heaviest first, only
// as many as the missing weight needs plus a hedge, more as answers fail or are slow; requests
// sent a slice per turn of the event loop, their hedge delays and deadlines kept by one timer,
// cancelled when the collection ends. It knows requests and weights, not signatures: what came
// back goes to the collection (collection.ts).
import type { CanonicalSet } from '../validators/canonical-set.js';
import type { CollectionStats } from './errors.js';
import { isTimeout, type AskTicket, type PeerAnswer, type PeerSource, type SignatureRequest } from './peer-source.js';
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
/** How often validators being connected are looked at again (see Waiting). */
const CONNECT_POLL_MS = 20;

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

/**
 * One request on its way. Requests are kept in the order they were asked, so their hedge times
 * and deadlines (the ask time plus a delay, the deadline capped by the collection's) come in
 * order too, and one timer for the earliest serves them all.
 */
class Outstanding {
  slow = false;
  settled = false;
  ticket: AskTicket | undefined;

  constructor(
    readonly index: number,
    /** Epoch ms when it stops counting as weight on its way (Infinity: never). */
    readonly slowAt: number,
    /** Epoch ms when it times out. */
    readonly expiresAt: number,
  ) {}

}

/**
 * A validator not connected when its turn came, whose transport is connecting it (right after
 * start, the first read of its set is what starts the dial): asked as soon as it connects,
 * counted as not connected once the transport gives up on it or the wait (the request timeout,
 * capped by the deadline) is over. Polled: the transports share isConnected, not an event.
 */
interface Waiting {
  index: number;
  giveUpAt: number;
}

export class FanOut {
  private readonly set: CanonicalSet;
  /** Validators to ask, heaviest first; `next` is the first not yet asked. */
  private readonly order: number[];
  private next = 0;
  /** Every request asked, in order; settled ones stay until the heads below pass them. */
  private readonly sent: Outstanding[] = [];
  /** The first request in `sent` that may still turn slow, and the first that may still time out. */
  private slowHead = 0;
  private expiryHead = 0;
  private outstandingCount = 0;
  /** Outstanding requests not yet considered slow: the weight on its way. */
  private readonly onTheirWay = new Tally();
  private readonly extraWeight: bigint;
  /** The one timer: the next hedge delay or deadline of the requests on their way. */
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;
  private waiting: Waiting[] = [];
  private connectPoll: NodeJS.Timeout | undefined;

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
    return this.outstandingCount === 0 && this.next >= this.order.length && this.waiting.length === 0;
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
      if (inHand.weight >= targetWeight && signerInHand) break;
      const enoughOnItsWay = inHand.weight + this.onTheirWay.weight >= targetWeight + this.extraWeight;
      if (enoughOnItsWay && (signerInHand || this.onTheirWay.count > 0)) break;
      if (asked++ === FAN_OUT_SLICE) {
        // The rest goes out on the next turn of the event loop, after the answers that arrived
        // meanwhile have been read and handed to the workers: sending to 1,000 validators at
        // once holds the event loop for ~30 ms, while the heaviest, asked first, already answer.
        this.events.later();
        break;
      }
      this.ask(this.order[this.next++]!);
    }
    this.arm();
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
    const outstanding = this.outstandingCount;
    this.closed = true;
    // Those still waited for stay: countUnasked counts them as not connected.
    clearTimeout(this.connectPoll);
    this.connectPoll = undefined;
    this.cancelAll('timeout');
    return outstanding;
  }

  /** The validators never asked, counted as not asked (connected) or not connected. */
  countUnasked(): void {
    const unasked = [...this.waiting.map((w) => w.index), ...this.order.slice(this.next)];
    this.stopWaiting();
    for (const index of unasked) {
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
    this.disarm();
    this.stopWaiting();
    if (this.outstandingCount > 0) setImmediate(() => this.cancelAll('cancelled'));
  }

  private ask(index: number): void {
    const v = this.set.validators[index]!;
    if (!this.peers.isConnected(v.publicKeyHex)) {
      if (this.peers.connecting?.(v.publicKeyHex) === true) this.wait(index);
      else this.stats.notConnected++;
      return;
    }
    this.stats.asked++;
    const now = Date.now();
    const timeoutMs = Math.max(1, Math.min(this.input.requestTimeoutMs, this.input.deadlineAt - now));
    const { hedgeDelayMs } = this.input.options;
    const entry = new Outstanding(index, hedgeDelayMs < timeoutMs ? now + hedgeDelayMs : Infinity, now + timeoutMs);
    this.sent.push(entry);
    this.outstandingCount++;
    this.onTheirWay.add(v.weight);
    try {
      entry.ticket = this.peers.ask(v.publicKeyHex, this.input.request, timeoutMs, (err, answer) => this.onDone(entry, err, answer));
    } catch (err) {
      // A source that throws instead of answering through `done`: the same failure, after this turn.
      const error = err instanceof Error ? err : new Error(String(err));
      queueMicrotask(() => this.onDone(entry, error, undefined));
    }
  }

  /** Waits for a validator being connected (see Waiting); the next ones in line are asked meanwhile. */
  private wait(index: number): void {
    const giveUpAt = Math.min(Date.now() + this.input.requestTimeoutMs, this.input.deadlineAt);
    this.waiting.push({ index, giveUpAt });
    this.connectPoll ??= setTimeout(() => this.pollConnecting(), CONNECT_POLL_MS);
  }

  /**
   * Validators that connected go back in line, first (heaviest first among them); those the
   * transport gave up on, or waited for too long, count as not connected. Either way the
   * collection looks again: it may ask them, or nothing more may be coming.
   */
  private pollConnecting(): void {
    this.connectPoll = undefined;
    if (this.closed) return;
    const now = Date.now();
    const ready: number[] = [];
    const still: Waiting[] = [];
    let changed = false;
    for (const w of this.waiting) {
      const pk = this.set.validators[w.index]!.publicKeyHex;
      if (this.peers.isConnected(pk)) ready.push(w.index);
      else if (now >= w.giveUpAt || this.peers.connecting?.(pk) !== true) {
        this.stats.notConnected++;
        changed = true;
      } else still.push(w);
    }
    this.waiting = still;
    if (ready.length > 0) {
      this.order.splice(this.next, 0, ...ready);
      changed = true;
    }
    if (still.length > 0) this.connectPoll = setTimeout(() => this.pollConnecting(), CONNECT_POLL_MS);
    if (changed) this.events.later();
  }

  private stopWaiting(): void {
    clearTimeout(this.connectPoll);
    this.connectPoll = undefined;
    this.waiting = [];
  }

  /** Sets the one timer for the earliest hedge delay or deadline still ahead, unless it is set for sooner. */
  private arm(): void {
    if (this.closed) return;
    const at = Math.min(this.nextSlowAt(), this.nextExpiryAt());
    if (at === Infinity || (this.timer !== undefined && this.timerAt <= at)) return;
    this.disarm();
    this.timerAt = at;
    this.timer = setTimeout(() => this.onTimer(), Math.max(0, at - Date.now()));
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private nextSlowAt(): number {
    while (this.slowHead < this.sent.length) {
      const e = this.sent[this.slowHead]!;
      if (!e.settled && !e.slow) return e.slowAt;
      this.slowHead++;
    }
    return Infinity;
  }

  private nextExpiryAt(): number {
    while (this.expiryHead < this.sent.length) {
      const e = this.sent[this.expiryHead]!;
      if (!e.settled) return e.expiresAt;
      this.expiryHead++;
    }
    return Infinity;
  }

  /** Requests past their hedge delay stop counting as weight on their way; those past their deadline time out. */
  private onTimer(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.closed) return;
    const now = Date.now();
    let slowed = false;
    while (this.nextSlowAt() <= now) {
      const e = this.sent[this.slowHead++]!;
      e.slow = true;
      this.onTheirWay.remove(this.set.validators[e.index]!.weight);
      slowed = true;
    }
    const expired: Outstanding[] = [];
    while (this.nextExpiryAt() <= now) {
      const e = this.sent[this.expiryHead++]!;
      this.settle(e);
      e.ticket?.cancel('timeout');
      expired.push(e);
    }
    for (let i = 0; i < expired.length && !this.closed; i++) this.events.noSignature('timeout');
    if (slowed && !this.closed) this.events.slow();
    this.arm();
  }

  /** Cancels every outstanding request (the deadline: counted as timed out; the end: not needed). */
  private cancelAll(why: 'timeout' | 'cancelled'): void {
    this.disarm();
    for (let i = this.expiryHead; i < this.sent.length; i++) {
      const e = this.sent[i]!;
      if (e.settled) continue;
      this.settle(e);
      e.ticket?.cancel(why);
    }
    this.expiryHead = this.sent.length;
  }

  /** Takes a request off the outstanding ones; false when it was already settled (deadline, end). */
  private settle(e: Outstanding): boolean {
    if (e.settled) return false;
    e.settled = true;
    this.outstandingCount--;
    if (!e.slow) this.onTheirWay.remove(this.set.validators[e.index]!.weight);
    return true;
  }

  /** A request's answer or failure, from its transport. */
  private onDone(e: Outstanding, err: Error | undefined, answer: PeerAnswer | undefined): void {
    if (!this.settle(e) || this.closed) return;
    if (err !== undefined || answer === undefined) {
      this.events.noSignature(isTimeout(err) ? 'timeout' : 'error');
    } else if (answer.kind === 'refused') {
      if (answer.notYet) this.stats.notYet++;
      this.events.noSignature('refused');
    } else {
      this.stats.answered++;
      this.events.signature(e.index, answer.signature);
    }
  }
}
