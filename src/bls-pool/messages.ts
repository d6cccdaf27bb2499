// What the BLS pool and its worker threads say to each other, in the one module both import.
// `Jobs` names every kind of job with what it takes and what it gives back; the worker's handler
// table and the pool's calls are both typed from it, so a kind renamed on one side and not the
// other fails the type check instead of failing at run time.
import { SIGNATURE_LENGTH, SIGNATURE_UNCOMPRESSED_LENGTH } from '../bls/constants.js';
import { COMPRESSION_FLAG, isUncompressedForm, isWellFormedSignature } from '../bls/forms.js';
import type { BackendName } from '../bls/types.js';

/**
 * A running aggregate: Σ pk_i and Σ sig_i over signatures that each decoded (either form, on the
 * curve, not infinity) but were NOT checked for the subgroup, as the backend's encodeSum bytes.
 * The final check is the one avalanchego makes on a signed message: the subgroup check of the
 * summed signature and one pairing of the summed key against it (warp BitSetSignature.Verify
 * checks only the aggregate it parses). When it fails, bisection names the bad signatures one by
 * one, each checked as avalanchego accepts a signer's (subgroup included). (Blinding every
 * arrival with a random scalar, to prove each signature on its own in the final pairing, costs
 * 2.5–5x more per signature in the small batches answers arrive in, bench/bls-backends.ts; it
 * would only matter for colluding signers whose bad signatures cancel out, or whose points
 * outside the subgroup sum to one inside it, and their sum is then a valid signature by their
 * own keys.)
 */
export type RunningSum = Uint8Array;

/**
 * Signatures and their signers' keys (48-byte compressed), position by position. A signature is
 * 96 bytes compressed, or 192 uncompressed when it came from one of our own signers (no square
 * root to decode it: src/bls/constants.ts).
 */
export interface SignatureBatch {
  sigs: Uint8Array[];
  pks: Uint8Array[];
}

export interface FoldJob extends SignatureBatch {
  /** Earlier running sums to merge into the result, so few are left to add at the end. */
  base?: RunningSum[];
}

/**
 * A SignatureBatch as it travels to a worker: the signatures end to end in slots of
 * `slotBytes` (96, or 192 when any is uncompressed) and the keys end to end (48 bytes each), two
 * buffers transferred instead of two arrays of small Uint8Arrays cloned one by one (~0.8 µs of
 * the event loop per signature and key, and a copy of each one's whole backing ArrayBuffer). A
 * signature whose length its compression flag contradicts (or of another length) takes an
 * all-zero slot, which no backend decodes (96 zeros carry no compression flag, 192 zeros are no
 * point on the curve), so it is rejected at its own position.
 */
export interface PackedBatch {
  count: number;
  slotBytes: number;
  sigs: Uint8Array;
  pks: Uint8Array;
}

const PACKED_KEY_BYTES = 48;

export function packBatch({ sigs, pks }: SignatureBatch): PackedBatch {
  const count = sigs.length;
  const slotBytes = sigs.some(isUncompressedForm) ? SIGNATURE_UNCOMPRESSED_LENGTH : SIGNATURE_LENGTH;
  const packedSigs = new Uint8Array(count * slotBytes);
  const packedPks = new Uint8Array(count * PACKED_KEY_BYTES);
  for (let i = 0; i < count; i++) {
    const sig = sigs[i]!;
    if (isWellFormedSignature(sig)) packedSigs.set(sig, i * slotBytes);
    packedPks.set(pks[i]!, i * PACKED_KEY_BYTES);
  }
  return { count, slotBytes, sigs: packedSigs, pks: packedPks };
}

/** The batch's signature at `i`, a view into the packed buffer: 96 bytes when its compression flag is set, else the slot. */
export function signatureAt(batch: PackedBatch, i: number): Uint8Array {
  const slot = batch.sigs.subarray(i * batch.slotBytes, (i + 1) * batch.slotBytes);
  return (slot[0]! & COMPRESSION_FLAG) !== 0 ? slot.subarray(0, SIGNATURE_LENGTH) : slot;
}

/** Where the batch's key at `i` starts in its packed keys. */
export function keyOffset(i: number): number {
  return i * PACKED_KEY_BYTES;
}

/** A fold as a worker receives it. */
export interface PackedFoldJob extends PackedBatch {
  base?: RunningSum[];
}

export interface FoldResult {
  /** The new running sum (base included), or null when nothing was accepted and there was no base. */
  partial: RunningSum | null;
  /** Positions (into the job's sigs) that do not decode (length, encoding, curve) or are infinity; the subgroup is the final check's. */
  rejected: number[];
}

export interface FinalizeJob {
  message: Uint8Array;
  /** Running sums returned by fold. */
  parts: RunningSum[];
}

export interface FinalizeResult {
  /** Whether the summed signature verifies against the summed key. */
  valid: boolean;
  /** The summed signature, 96-byte compressed. */
  signature: Uint8Array;
}

/**
 * A fold with the final check (of the result, or of the fewest signers' sum alone) in the same
 * task: for the fold expected to complete the target, one worker round trip instead of two; with
 * nothing new to fold, a check of running sums alone. The check runs only when every signature of
 * the batch decoded; otherwise the caller decides anew.
 */
interface FoldAndCheckJob extends PackedFoldJob {
  message: Uint8Array;
  /**
   * The fewest signers, checked instead of the fold's whole result: their sum is `add` (their
   * own signatures), or with `fromResult` the fold's result minus `remove` (the others').
   */
  subset?: { add: SignatureBatch; remove: SignatureBatch; fromResult: boolean };
}

export interface FoldAndCheckResult extends FoldResult {
  /**
   * The check of the job's subset when it named one, else of `partial`; null when something was
   * rejected (or nothing summed). `ms`: from the start of its task's checks until this one's answer
   * was known (the task may check several aggregations' at once).
   */
  check: (FinalizeResult & { ms: number }) | null;
}

/** Signatures over one message. */
export interface SameMessageBatch extends SignatureBatch {
  message: Uint8Array;
}

/** A peer's proof of key possession under our own DST (the peer handshake). */
export interface PossessionJob {
  publicKey: Uint8Array;
  message: Uint8Array;
  proof: Uint8Array;
  dst: string;
}

/** Every kind of job a worker runs: what it takes, and what it gives back. */
interface Jobs {
  /** Starts a thread (and its BLS backend) before the first real job. */
  ping: { job: null; result: true };
  /** Decodes each signature (no subgroup check: the final check makes it on the aggregate) and adds the decoded ones (and the base sums) up. */
  fold: { job: PackedFoldJob; result: FoldResult };
  /**
   * fold, then the check of its result (or of the fewest signers' sum) in the same task; the
   * task's jobs checked together. Every final check is one: a finalize is one with nothing new to
   * fold (the parts as `base`), a subset's check one that removes the rest from them or adds up
   * the subset's own signatures.
   */
  foldAndCheck: { job: FoldAndCheckJob; result: FoldAndCheckResult };
  /** Bisection: positions of the signatures that do not verify, ascending. */
  findInvalid: { job: SameMessageBatch; result: number[] };
  /** One full verification per signature. */
  verifyEach: { job: SameMessageBatch; result: boolean[] };
  /** Plain sum of already-verified signatures. */
  aggregate: { job: Uint8Array[]; result: Uint8Array };
  verifyPossession: { job: PossessionJob; result: boolean };
}

export type JobKind = keyof Jobs;
export type JobOf<K extends JobKind> = Jobs[K]['job'];
export type ResultOf<K extends JobKind> = Jobs[K]['result'];

/** What a worker runs in one turn: jobs of one kind, one after the other. */
export interface Task<K extends JobKind> {
  kind: K;
  jobs: JobOf<K>[];
}

/** What one job came to: its result, or the message of what it threw (it failed alone). */
export type Outcome<R> = { code: 'success'; result: R } | { code: 'error'; error: string };

export interface TaskResult<K extends JobKind> {
  /** One per job, in order. */
  outcomes: Outcome<ResultOf<K>>[];
  /** When the worker started and finished the task (preciseNow, comparable across threads). */
  startedAt: number;
  finishedAt: number;
}

export interface BlsWorkerData {
  backend: BackendName;
}

/** Epoch milliseconds with sub-millisecond precision, comparable between threads. */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}
