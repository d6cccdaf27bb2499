// How a collection checks the signatures it collects: a VerificationStrategy makes one
// Verification per collection. The collection keeps the books in its SignatureLedger and decides
// when to finish (collection.ts); the verification decides which checks run on the ledger's
// signatures, what is ready for the final check, and makes it.
//
// runningSums, the one warpgate uses: each arrival is only decompressed (on the curve, not
// infinity) and added to running sums in the BLS pool; the final check is the subgroup check of
// the summed signature and one pairing against the summed keys, the check avalanchego makes of
// the signed message (it never sees the signers' own signatures). A failed check falls back to
// bisection in the pool, which checks signatures as avalanchego accepts a signer's (subgroup
// included): the bad signatures are dropped (their peers penalized) and collecting goes on.
//
// The fewest signers: the destination's Warp precompile charges gas per signer, so once what is
// ready reaches the target, the signed message carries only the fewest of those signers that
// reach it, heaviest first (validators/minimal-signers.ts), and only their aggregate is checked
// (the pool's subsetCheck, or in the fold that completes the target, foldAndCheck): it is all the
// message holds and all the destination will check. The signatures left out stay unchecked, as
// answers held in reserve do: not proven, not cached, their peers neither credited nor penalized
// (a check of the whole sum would prove nothing about the subset's: sums are not blinded, so two
// bad signatures can cancel out across it). When the subset's check fails, bisection over every
// signature ready drops the bad ones (the left-out ones too) as after any failed check, and
// collecting goes on. One pairing instead of the two a check of the whole and then of the subset
// took (~0.6x their time: bench/bls-backends.ts, the fewest signers' rows).
import type { FinalizeResult, FoldAndCheckResult, FoldResult, RunningSum } from '../bls-pool/messages.js';
import type { BlsVerifier, FinalCheck, FoldAndCheckRequest } from '../bls-pool/verifier.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import { minimalSigners } from '../validators/minimal-signers.js';
import type { Arrival, SignatureLedger } from './signature-ledger.js';

export interface VerificationContext {
  /** The unsigned message's bytes, as signed. */
  message: Uint8Array;
  set: CanonicalSet;
  /** The collection stops once this weight is verified. */
  targetWeight: bigint;
  /** Sign with the fewest signers that reach the target (aggregation.minimizeSigners). */
  minimizeSigners: boolean;
  pool: BlsVerifier;
  /** The collection's signatures; the verification moves them along (accept, reject, prove, drop). */
  ledger: SignatureLedger;
}

/** The final check's outcome; `subsetCheckMs`: the time its check of the fewest signers took, if it made one. */
export type AggregateCheck = (
  /**
   * The signers to put in the message (every signature ready, or the fewest that reach the
   * target), ascending, passed: their aggregate and weight. `checked`: every signature ready that
   * is proven now (the signers, and any an earlier bisection proved), ascending; `leftOut`: how
   * many ready signatures the fewest signers left out (unchecked, unless an earlier check proved them).
   */
  | { valid: true; signers: number[]; signature: Uint8Array; weight: bigint; checked: number[]; leftOut: number }
  /** Some did not: they were dropped, and the rest stay ready for the next final check. */
  | { valid: false }
) & { subsetCheckMs?: number };

export interface Verification {
  /**
   * Starts the checks worth starting now on the ledger's waiting signatures. `noMoreComing`: the
   * deadline passed or every validator answered, so whatever waits must be checked now.
   */
  startChecks(noMoreComing: boolean): void;
  /** Weight (and signers) ready for the final check. */
  readonly readyWeight: bigint;
  readonly readySigners: number;
  /** Some signature ready for the final check is not proven yet: it is checked even on the way to a failure. */
  readonly unproven: boolean;
  /** The final check of everything ready; the collection asks for one at a time. */
  finalCheck(): Promise<AggregateCheck>;
}

export type VerificationStrategy = (ctx: VerificationContext) => Verification;

/**
 * Signatures a fold below the target waits for: one per 32 validators of the set, at most 32.
 * Handing a task to a worker and back costs about as much CPU as decompressing four signatures
 * (~0.09 ms, both threads together: bench/fold-batches.ts), and answers arrive a few at a time:
 * folding each turn's answers made ~40 folds per aggregation at 1,000 validators, this makes ~18.
 * The fold that completes the target takes what is still waiting (at most 31 more, ~22 µs each).
 * Measured with bench/quorum.ts and bench/fold-batches.ts (commit 189f7db).
 */
export function minimumFold(validators: number): number {
  return Math.min(LARGEST_MINIMUM_FOLD, Math.max(1, Math.floor(validators / 32)));
}

/** minimumFold's cap, reached at 1,024 validators. */
const LARGEST_MINIMUM_FOLD = 32;

/**
 * An uncompressed signature counts as this fraction of a compressed one towards a fold: it
 * decodes in ~1.5 µs instead of ~20 µs, so a fold of them waits for four times as many (128 at
 * 1,000 validators, ~5 folds per aggregation instead of ~18: 2.9 against 4.5 ms of CPU in
 * bench/fold-batches.ts --uncompressed, commit e8eb227), and the fold that completes the
 * target still decodes its at most 127 more in ~0.2 ms.
 */
const UNCOMPRESSED_SHARE = 1 / 4;

/**
 * What a fold below the target waits for, in compressed signatures' worth. minimumFold scales
 * with the set so that the fold completing the target has few square roots left to take (20 µs
 * each); 127 uncompressed signatures left cost ~0.2 ms at any size of set, so when only
 * uncompressed ones wait, a fold waits for 128 of them (LARGEST_MINIMUM_FOLD's worth) whatever
 * the set: at 100 validators the ~70 answers a quorum needs then go to a worker once, with the
 * final check, instead of in ~6 folds of 12, each hand-off costing ~0.1 ms of CPU (commit
 * e8eb227).
 */
function foldThreshold(ledger: SignatureLedger, minFold: number): number {
  return ledger.waitingUncompressed === ledger.waitingCount ? Math.max(minFold, LARGEST_MINIMUM_FOLD) : minFold;
}

/** What waits for a fold, in compressed signatures' worth (see UNCOMPRESSED_SHARE). */
function waitingFoldWork(ledger: SignatureLedger): number {
  const uncompressed = ledger.waitingUncompressed;
  return ledger.waitingCount - uncompressed + uncompressed * UNCOMPRESSED_SHARE;
}

/** A running sum and the canonical indices (and their weight) in it. */
interface Sum {
  part: RunningSum;
  members: number[];
  weight: bigint;
  /** Its final check, already made in the fold that produced it (foldAndCheck). */
  checked?: PrecomputedCheck;
}

interface PrecomputedCheck {
  /** The fewest signers, when that task checked only their sum; otherwise it checked the whole. */
  fewest?: number[];
  /** Its outcome, and how long the check took (ms). */
  result: FinalizeResult & { ms: number };
}

class RunningSumVerification implements Verification {
  /** Running sums not being merged or checked right now. */
  private readonly sums: Sum[] = [];

  private readonly minFold: number;

  constructor(private readonly ctx: VerificationContext) {
    this.minFold = minimumFold(ctx.set.validators.length);
  }

  get readyWeight(): bigint {
    return this.sums.reduce((w, s) => w + s.weight, 0n);
  }

  get readySigners(): number {
    return this.sums.reduce((n, s) => n + s.members.length, 0);
  }

  get unproven(): boolean {
    return this.sums.some((s) => s.members.some((i) => !this.ctx.ledger.isProven(i)));
  }

  /**
   * Only as many of the waiting signatures (heaviest first) as the target still needs beyond the
   * weight accepted or in a check. The rest wait in reserve and are checked only if a check
   * fails: when answers arrive faster than the workers check them (1,000 validators), checking
   * ones that end up unused only delays the answer (measured: ~590 signatures checked per
   * aggregation instead of ~350, median overhead 137 → ~60 ms under load; commit 86f3a6b).
   */
  startChecks(noMoreComing: boolean): void {
    const { ledger, pool, targetWeight } = this.ctx;
    // Once what has arrived would complete the target, one check at a time: the rest goes as one
    // batch, after the fold in flight, with its sum as the base, so that its fold carries the
    // final check and the fewest signers' check in the same task (split across threads, neither
    // half completes the target, and the checks take two more worker round trips).
    if (ledger.inHand().weight >= targetWeight) {
      ledger.startChecks((batch) => this.fold(batch), 1, targetWeight);
      return;
    }
    // Below the target, a fold waits until foldThreshold's worth waits (or nothing more can
    // come): each fold costs a worker hand-off, and the answer waits only on the fold that
    // completes the target, which takes whatever is still waiting then.
    const waiting = waitingFoldWork(ledger);
    const threshold = foldThreshold(ledger, this.minFold);
    if (!noMoreComing && waiting < threshold) return;
    const parallelism = Math.max(1, Math.min(pool.suggestedParallelism(), Math.floor(waiting / threshold)));
    ledger.startChecks((batch) => this.fold(batch), parallelism, targetWeight);
  }

  async finalCheck(): Promise<AggregateCheck> {
    const { ledger, pool, message } = this.ctx;
    // Out of the list while checked, so that no fold merges them meanwhile.
    const all = this.sums.splice(0);
    // A sum its own fold checked (one task) and that reaches the target alone is the answer by
    // itself; the others stay ready. A failed check is made again here, which goes on to
    // bisection.
    const done = all.find((p) => p.checked?.result.valid === true && p.weight >= this.ctx.targetWeight);
    const parts = done ? [done] : all;
    if (done) this.sums.push(...all.filter((p) => p !== done));
    const members = parts.flatMap((p) => p.members);
    const job = { message, parts: parts.map((p) => p.part), signatures: () => ledger.batchOf(members) };
    const pre = parts.length === 1 ? parts[0]!.checked : undefined;
    // A precomputed check was made of `pre.fewest` when it names a subset, else of every member.
    const fewest = this.ctx.minimizeSigners ? (pre ? pre.fewest : this.fewestSigners(members)) : undefined;
    let check: FinalCheck;
    let subsetCheckMs: number | undefined;
    if (pre?.result.valid) {
      check = { valid: true, signature: pre.result.signature };
      if (fewest) subsetCheckMs = pre.result.ms;
    } else if (fewest) {
      const started = performance.now();
      check = await pool.subsetCheck({ ...job, subset: positionsOf(fewest, members) });
      subsetCheckMs = performance.now() - started;
    } else check = await pool.finalCheck(job);
    if (ledger.isClosed) return { valid: false };
    if (check.valid) {
      const signers = fewest ?? members;
      for (const i of signers) ledger.prove(i);
      // Still ready: if the collection goes on, they are part of the next final check.
      this.sums.push(...parts);
      const weight = signers.reduce((w, i) => w + ledger.weightOf(i), 0n);
      const ascending = (list: number[]): number[] => [...list].sort((a, b) => a - b);
      const checked = ascending(members.filter((i) => ledger.isProven(i)));
      return { valid: true, signers: ascending(signers), signature: check.signature, weight, checked, leftOut: members.length - signers.length, subsetCheckMs };
    }
    // Bisection went over every member, the subset's or not: the bad ones are dropped (their
    // peers penalized), and every good one sat in a group that passed a batch check: proven.
    const bad = new Set(check.invalid.map((p) => members[p]!));
    for (const i of bad) ledger.drop(i, 'the signature is outside the subgroup or does not verify for this message and key');
    const good = members.filter((i) => !bad.has(i));
    for (const i of good) ledger.prove(i);
    if (check.rest) this.sums.push({ part: check.rest, members: good, weight: good.reduce((w, i) => w + ledger.weightOf(i), 0n) });
    return { valid: false, subsetCheckMs };
  }

  /**
   * The fewest of `members` that reach the target, when that is fewer than all of them. Below the
   * target (a deadline's answer at quorum) every signer counts: none is redundant.
   */
  private fewestSigners(members: number[]): number[] | undefined {
    const { ledger, targetWeight } = this.ctx;
    const fewest = minimalSigners(
      members.map((index) => ({ index, weight: ledger.weightOf(index) })),
      targetWeight,
    );
    return fewest.reachedTarget && fewest.indices.length < members.length ? fewest.indices : undefined;
  }

  /**
   * Decompression and a plain sum into one running sum, merging the idle ones (subgroup checks
   * wait for the final check). A fold whose sum reaches the target when all of it decodes
   * carries the final check (of the whole, or of the fewest signers alone) in its task.
   */
  private async fold(batch: Arrival[]): Promise<void> {
    const { ledger, pool, targetWeight, message } = this.ctx;
    const base = this.sums.splice(0);
    const baseMembers = base.flatMap((b) => b.members);
    const baseWeight = base.reduce((w, b) => w + b.weight, 0n);
    const { sigs, pks } = ledger.batchOf(batch);
    const folded = { sigs, pks, base: base.map((b) => b.part) };
    const completes = batch.reduce((w, a) => w + ledger.weightOf(a.index), baseWeight) >= targetWeight;
    let fewest: number[] | undefined;
    let r: FoldAndCheckResult | (FoldResult & { check?: undefined });
    if (completes) {
      const all = [...baseMembers, ...batch.map((a) => a.index)];
      fewest = this.ctx.minimizeSigners ? this.fewestSigners(all) : undefined;
      let subset: FoldAndCheckRequest['subset'];
      if (fewest) {
        // Only the smaller side goes to the worker (usually the few the fewest signers leave out),
        // not every signature the sum holds. The batch's are not accepted yet: read from it.
        const kept = new Set(fewest);
        const leftOut = all.filter((i) => !kept.has(i));
        const inBatch = new Map(batch.map((a) => [a.index, a]));
        const signaturesOf = (indices: number[]) => ledger.batchOf(indices.map((i) => inBatch.get(i) ?? i));
        subset = leftOut.length < fewest.length ? { leftOut: signaturesOf(leftOut) } : { kept: signaturesOf(fewest) };
      }
      r = await pool.foldAndCheck({ ...folded, message, subset });
    } else r = await pool.fold(folded);
    if (ledger.isClosed) return;
    const rejected = new Set(r.rejected);
    const members = [...baseMembers];
    let weight = baseWeight;
    batch.forEach((a, i) => {
      if (rejected.has(i)) {
        ledger.reject(a, 'the signature is not a valid G2 point');
        return;
      }
      ledger.accept(a);
      members.push(a.index);
      weight += ledger.weightOf(a.index);
    });
    if (!r.partial) return;
    const checked: PrecomputedCheck | undefined = r.check ? { fewest, result: r.check } : undefined;
    this.sums.push({ part: r.partial, members, weight, checked });
  }
}

/** Positions (ascending) of `subset`'s indices in `members`. */
function positionsOf(subset: readonly number[], members: readonly number[]): number[] {
  const position = new Map(members.map((index, p) => [index, p]));
  return subset.map((i) => position.get(i)!).sort((a, b) => a - b);
}

/** warpgate's verification (see the top of this file). */
export const runningSums: VerificationStrategy = (ctx) => new RunningSumVerification(ctx);
