// A collection's signatures on their way through the checks: waiting (heaviest first), in a
// check, accepted (passed the per-arrival check), dropped (failed one) and proven valid, with
// their weights. The verification strategy decides which checks run (verification.ts); the ledger
// keeps the books, starts the checks it is given, and tells the collection what happened.
import { isUncompressedForm } from '../bls/forms.js';
import type { SignatureBatch } from '../bls-pool/messages.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import { heaviestFirst, Tally } from './weights.js';

/** A signature that arrived (from a peer or the cache) for the validator at a canonical index. */
export interface Arrival {
  index: number;
  sig: Uint8Array;
}

/** What the ledger tells its collection. */
export interface LedgerEvents {
  /** A signature failed a check: its signer is penalized, or it leaves the cache. */
  invalid(index: number, reason: string): void;
  /** A signature is proven valid (once per signature). */
  proven(index: number): void;
  /** A check ended: the collection takes stock. */
  checkDone(): void;
  /** A check failed for another reason than a bad signature (a closed pool, a bug). */
  checkFailed(err: unknown): void;
}

/** A batch checks at most this many signatures, so a backlog is spread over the threads and heavy ones go first. */
const MAX_BATCH = 128;

/** Our own signers' uncompressed form decodes without a square root (verification.ts counts it apart). */
const countUncompressed = (arrivals: readonly Arrival[]): number => arrivals.reduce((n, a) => n + (isUncompressedForm(a.sig) ? 1 : 0), 0);

export class SignatureLedger {
  private readonly waiting: Arrival[] = [];
  /** How many of `waiting` are in the uncompressed form. */
  private waitingUncompressedCount = 0;
  /** Signatures waiting for, or in, a check. */
  private readonly unchecked = new Tally();
  /** Signatures that passed their per-arrival check, by canonical index. */
  private readonly accepted = new Map<number, Uint8Array>();
  private acceptedWeightSum = 0n;
  /**
   * Indices whose signature is verified: part of an aggregate whose pairing check passed, of a
   * group that passed a random-scalar batch check, or verified alone. (Colluding signers could
   * pass the aggregate check with bad signatures that cancel out; should such a cached signature
   * later be used without its partner, the failed check's bisection finds it and it leaves the
   * cache.)
   */
  private readonly proven = new Set<number>();
  private checks = 0;
  private closed = false;
  private readonly heaviest: (a: number, b: number) => number;

  constructor(
    readonly set: CanonicalSet,
    private readonly events: LedgerEvents,
  ) {
    this.heaviest = heaviestFirst(set);
  }

  weightOf(index: number): bigint {
    return this.set.validators[index]!.weight;
  }

  add(index: number, sig: Uint8Array): void {
    this.waiting.push({ index, sig });
    if (isUncompressedForm(sig)) this.waitingUncompressedCount++;
    this.unchecked.add(this.weightOf(index));
  }

  /** Weight and signers arrived and not found invalid: accepted, in a check or waiting for one. */
  inHand(): { weight: bigint; signers: number } {
    return { weight: this.acceptedWeightSum + this.unchecked.weight, signers: this.accepted.size + this.unchecked.count };
  }

  /** Signatures waiting for a check (not in one). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Of those, how many are in the uncompressed form (cheaper to check: verification.ts minimumFold). */
  get waitingUncompressed(): number {
    return this.waitingUncompressedCount;
  }

  /** Nothing waits for a check and none is running. */
  get idle(): boolean {
    return this.waiting.length === 0 && this.checks === 0;
  }

  /**
   * Starts checks of the waiting signatures, heaviest first, one batch per free slot
   * (`parallelism` checks at once): all of them, or with `upTo` only as many as it takes to reach
   * that weight beyond the weight accepted or in a check (the rest wait in reserve).
   */
  startChecks(check: (batch: Arrival[]) => Promise<void>, parallelism: number, upTo?: bigint): void {
    if (this.closed || this.waiting.length === 0 || this.checks >= parallelism) return;
    this.waiting.sort((a, b) => this.heaviest(a.index, b.index));
    const ready = this.waiting.splice(0, upTo === undefined ? this.waiting.length : this.neededFor(upTo));
    while (ready.length > 0 && this.checks < parallelism) {
      const size = Math.min(MAX_BATCH, Math.ceil(ready.length / (parallelism - this.checks)));
      const batch = ready.splice(0, size);
      this.waitingUncompressedCount -= countUncompressed(batch);
      this.track(check(batch));
    }
    this.waiting.unshift(...ready);
  }

  /** Passed its per-arrival check. */
  accept(a: Arrival): void {
    const weight = this.weightOf(a.index);
    this.unchecked.remove(weight);
    this.accepted.set(a.index, a.sig);
    this.acceptedWeightSum += weight;
  }

  /** Failed its per-arrival check. */
  reject(a: Arrival, reason: string): void {
    this.unchecked.remove(this.weightOf(a.index));
    this.events.invalid(a.index, reason);
  }

  /** Accepted, then found invalid (by bisection). */
  drop(index: number, reason: string): void {
    if (!this.accepted.delete(index)) return;
    this.acceptedWeightSum -= this.weightOf(index);
    this.events.invalid(index, reason);
  }

  prove(index: number): void {
    if (this.proven.has(index)) return;
    this.proven.add(index);
    this.events.proven(index);
  }

  isProven(index: number): boolean {
    return this.proven.has(index);
  }

  get acceptedWeight(): bigint {
    return this.acceptedWeightSum;
  }

  /** Canonical indices of the accepted signatures, ascending. */
  acceptedSigners(): number[] {
    return [...this.accepted.keys()].sort((a, b) => a - b);
  }

  /** The signatures (accepted ones for indices) and their signers' keys, position by position. */
  batchOf(items: readonly (Arrival | number)[]): SignatureBatch {
    const sigs: Uint8Array[] = [];
    const pks: Uint8Array[] = [];
    for (const item of items) {
      const index = typeof item === 'number' ? item : item.index;
      sigs.push(typeof item === 'number' ? this.accepted.get(index)! : item.sig);
      pks.push(this.set.validators[index]!.publicKey.bytes);
    }
    return { sigs, pks };
  }

  /** Proven signatures by key hex, for the signature cache: all of them, or those among `indices`. */
  verified(indices: Iterable<number> = this.proven): Map<string, Uint8Array> {
    const verified = new Map<string, Uint8Array>();
    for (const i of indices) {
      const sig = this.accepted.get(i);
      if (sig && this.proven.has(i)) verified.set(this.set.validators[i]!.publicKeyHex, sig);
    }
    return verified;
  }

  /** Weight of the accepted signatures proven valid. */
  provenWeight(): bigint {
    let weight = 0n;
    for (const i of this.proven) if (this.accepted.has(i)) weight += this.weightOf(i);
    return weight;
  }

  /** The collection ended: checks still running are not reported, and none starts. */
  close(): void {
    this.closed = true;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * How many of the waiting signatures (heaviest first) it takes to reach `target` beyond the
   * weight accepted or in a check; at least one while no signature is accepted or in a check (a
   * signed message needs one signer even when the target is 0).
   */
  private neededFor(target: bigint): number {
    let waitingWeight = 0n;
    for (const a of this.waiting) waitingWeight += this.weightOf(a.index);
    let missing = target - this.acceptedWeightSum - (this.unchecked.weight - waitingWeight);
    const noneYet = this.accepted.size === 0 && this.unchecked.count === this.waiting.length;
    let take = 0;
    while (take < this.waiting.length && (missing > 0n || (noneYet && take === 0))) missing -= this.weightOf(this.waiting[take++]!.index);
    return take;
  }

  private track(work: Promise<void>): void {
    this.checks++;
    work.then(
      () => {
        this.checks--;
        if (!this.closed) this.events.checkDone();
      },
      (err: unknown) => {
        this.checks--;
        if (!this.closed) this.events.checkFailed(err);
      },
    );
  }
}
