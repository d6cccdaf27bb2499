// How a collection checks the signatures it collects: a VerificationStrategy makes one
// Verification per collection. The collection keeps the books in its SignatureLedger and decides
// when to finish (collection.ts); the verification decides which checks run on the ledger's
// signatures, what is ready for the final check, and makes it.
//
// runningSums, the one warpgate uses: each arrival gets avalanchego's acceptance check
// (decompression, subgroup) and is added to running sums in the BLS pool; the final check is one
// pairing of the summed keys against the summed signatures, the check avalanchego makes of the
// signed message. A failed pairing falls back to bisection in the pool: the bad signatures are
// dropped (their peers penalized) and collecting goes on.
import type { RunningSum } from '../bls-pool/messages.js';
import type { BlsVerifier } from '../bls-pool/verifier.js';
import type { CanonicalSet } from '../validators/canonical-set.js';
import type { Arrival, SignatureLedger } from './signature-ledger.js';

export interface VerificationContext {
  /** The unsigned message's bytes, as signed. */
  message: Uint8Array;
  set: CanonicalSet;
  /** The collection stops once this weight is verified. */
  targetWeight: bigint;
  pool: BlsVerifier;
  /** The collection's signatures; the verification moves them along (accept, reject, prove, drop). */
  ledger: SignatureLedger;
}

/** The final check's outcome. */
export type AggregateCheck =
  /** Every signature ready passed (they are proven): their signers, ascending, and the aggregate. */
  | { valid: true; signers: number[]; signature: Uint8Array; weight: bigint }
  /** Some did not: they were dropped, and the rest stay ready for the next final check. */
  | { valid: false };

export interface Verification {
  /** Starts the checks worth starting now on the ledger's waiting signatures. */
  startChecks(): void;
  /** Weight (and signers) ready for the final check. */
  readonly readyWeight: bigint;
  readonly readySigners: number;
  /** Some signature ready for the final check is not proven yet: it is checked even on the way to a failure. */
  readonly unproven: boolean;
  /** The final check of everything ready; the collection asks for one at a time. */
  finalCheck(): Promise<AggregateCheck>;
}

export type VerificationStrategy = (ctx: VerificationContext) => Verification;

/** A running sum and the canonical indices (and their weight) in it. */
interface Sum {
  part: RunningSum;
  members: number[];
  weight: bigint;
}

class RunningSumVerification implements Verification {
  /** Running sums not being merged or checked right now. */
  private readonly sums: Sum[] = [];

  constructor(private readonly ctx: VerificationContext) {}

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
   * aggregation instead of ~350, median overhead 137 → ~60 ms under load; README "Performance").
   */
  startChecks(): void {
    const { ledger, pool, targetWeight } = this.ctx;
    ledger.startChecks((batch) => this.fold(batch), pool.suggestedParallelism(), targetWeight);
  }

  async finalCheck(): Promise<AggregateCheck> {
    const { ledger, pool, message } = this.ctx;
    // Out of the list while checked, so that no fold merges them meanwhile.
    const parts = this.sums.splice(0);
    const members = parts.flatMap((p) => p.members);
    const result = await pool.finalCheck({ message, parts: parts.map((p) => p.part), signatures: () => ledger.batchOf(members) });
    if (ledger.isClosed) return { valid: false };
    if (result.valid) {
      for (const i of members) ledger.prove(i);
      // Still ready: if the collection goes on, they are part of the next final check.
      this.sums.push(...parts);
      const weight = parts.reduce((w, p) => w + p.weight, 0n);
      return { valid: true, signers: [...members].sort((a, b) => a - b), signature: result.signature, weight };
    }
    const bad = new Set(result.invalid.map((p) => members[p]!));
    for (const i of bad) ledger.drop(i, 'the signature does not verify for this message and key');
    const good = members.filter((i) => !bad.has(i));
    // Every good one sat in a group that passed a batch check: proven valid.
    for (const i of good) ledger.prove(i);
    if (result.rest) this.sums.push({ part: result.rest, members: good, weight: good.reduce((w, i) => w + ledger.weightOf(i), 0n) });
    return { valid: false };
  }

  /** Subgroup checks and a plain sum into one running sum, merging the idle ones. */
  private async fold(batch: Arrival[]): Promise<void> {
    const { ledger, pool } = this.ctx;
    const base = this.sums.splice(0);
    const { sigs, pks } = ledger.batchOf(batch);
    const r = await pool.fold({ sigs, pks, base: base.map((b) => b.part) });
    if (ledger.isClosed) return;
    const rejected = new Set(r.rejected);
    const members = base.flatMap((b) => b.members);
    let weight = base.reduce((sum, b) => sum + b.weight, 0n);
    batch.forEach((a, i) => {
      if (rejected.has(i)) {
        ledger.reject(a, 'the signature is not a valid G2 point in the subgroup');
        return;
      }
      ledger.accept(a);
      members.push(a.index);
      weight += ledger.weightOf(a.index);
    });
    if (r.partial) this.sums.push({ part: r.partial, members, weight });
  }
}

/** warpgate's verification (see the top of this file). */
export const runningSums: VerificationStrategy = (ctx) => new RunningSumVerification(ctx);
