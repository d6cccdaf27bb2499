// What callers of the BLS pool see: the operations an aggregation and the peer handshake need,
// never its queues or threads. BlsPool (pool.ts) implements it with worker threads; a caller
// that only needs some of it takes this interface, so a test can hand it another.
import type { FinalizeJob, FinalizeResult, FoldAndCheckResult, FoldJob, FoldResult, PossessionJob, RunningSum, SameMessageBatch, SignatureBatch } from './messages.js';

export interface FinalCheckJob {
  message: Uint8Array;
  /** Running sums returned by fold. */
  parts: RunningSum[];
  /**
   * Every signature in `parts` (with its key), in the order the result's positions refer to.
   * Asked for only when the aggregate check fails, so the usual case sends no signature twice.
   */
  signatures: () => SignatureBatch;
}

/** A subset of the signatures in `parts`, checked on its own. */
export interface SubsetCheckJob extends FinalCheckJob {
  /**
   * Positions (into `signatures()`, ascending) of the subset. Its aggregate needs its own
   * pairing: signatures are summed without blinding, so a valid aggregate of them all does not
   * make a subset's valid (two bad signatures can cancel out, and the subset may hold only one).
   */
  subset: number[];
}

/** A fold expected to complete the target, checked in the same task (the pool's foldAndCheck). */
export interface FoldAndCheckRequest extends FoldJob {
  message: Uint8Array;
  /**
   * The fewest signers, checked instead of the whole result, by the smaller side of them among
   * the signatures the fold's result will hold: `kept`, the subset's own signatures, or
   * `leftOut`, the others. The worker decompresses only that side again.
   */
  subset?: { kept: SignatureBatch } | { leftOut: SignatureBatch };
}

export type FinalCheck =
  /** The aggregate verifies: every signature in it counts (as avalanchego counts them). */
  | { valid: true; signature: Uint8Array }
  /**
   * It does not: bisection found the bad signatures (`invalid`: positions in `signatures()`,
   * ascending, never empty), and the others are folded again into `rest` (null when none are left).
   */
  | { valid: false; invalid: number[]; rest: RunningSum | null };

export interface BlsVerifier {
  /** Decodes each signature (the subgroup check is the final check's, on the aggregate) and sums the decoded ones (and `base`) into one running sum. */
  fold(job: FoldJob): Promise<FoldResult>;
  /**
   * fold, and when every signature decoded, the final check of its result, or with a subset asked
   * for, of the subset's sum alone, in one worker task. Failed checks are only reported:
   * bisection is the caller's (finalCheck / subsetCheck).
   */
  foldAndCheck(job: FoldAndCheckRequest): Promise<FoldAndCheckResult>;
  /** The subgroup check of the summed signatures of running sums, and one pairing against the summed keys. */
  finalize(job: FinalizeJob): Promise<FinalizeResult>;
  /** Bisection: the positions of the signatures that do not verify. */
  findInvalid(job: SameMessageBatch): Promise<number[]>;
  /** finalize, falling back to findInvalid and a fold of the rest when the pairing fails. */
  finalCheck(job: FinalCheckJob): Promise<FinalCheck>;
  /**
   * The subset's aggregate with one pairing (adding the subset or removing the rest from the sums,
   * whichever parses fewer signatures); when it fails, bisection over all of `signatures()` (the
   * bad ones outside the subset too) and a fold of the rest, as finalCheck does.
   */
  subsetCheck(job: SubsetCheckJob): Promise<FinalCheck>;
  /** One full verification per signature. */
  verifyEach(job: SameMessageBatch): Promise<boolean[]>;
  /** The plain sum of signatures already verified. */
  aggregate(sigs: Uint8Array[]): Promise<Uint8Array>;
  /** A peer's proof of possession (the handshake): only ever on a thread no other job wants. */
  verifyPossession(job: PossessionJob): Promise<boolean>;
  /**
   * How many checks one caller should have in flight at once now: one per thread while the
   * threads keep up, one while jobs already wait for a thread (a second would only queue, and one
   * larger job later costs less per signature than two small ones).
   */
  suggestedParallelism(): number;
}
