// A BLS worker thread: the BLS work that must stay off the event loop. Each thread loads its
// backend once (named in workerData) and keeps the public keys it has decompressed, so a
// validator set's keys cost their decompression once per thread, not once per request (parsing a
// key repeats its checks, ~70 µs with blst). Piscina calls the default export with one task.
import { workerData } from 'node:worker_threads';
import { isInfinityEncoding, signatureFromEitherForm } from '../bls/forms.js';
import { loadBackend } from '../bls/index.js';
import type { AggregateSet, PublicKey, Signature } from '../bls/types.js';
import { ParsedKeys } from './parsed-keys.js';
import {
  keyOffset,
  preciseNow,
  signatureAt,
  type BlsWorkerData,
  type FoldAndCheckResult,
  type FoldResult,
  type JobKind,
  type JobOf,
  type Outcome,
  type ResultOf,
  type SignatureBatch,
  type Task,
  type TaskResult,
} from './messages.js';

/** What runs one job of kind K (messages.ts says what each takes and gives back). */
type Handler<K extends JobKind> = (job: JobOf<K>) => ResultOf<K>;

const bls = loadBackend((workerData as Partial<BlsWorkerData> | undefined)?.backend ?? 'blst');

const MAX_CACHED_KEYS = 20_000;
const keys = new ParsedKeys<PublicKey>((bytes) => bls.publicKeyFromBytes(bytes), MAX_CACHED_KEYS);
const publicKey = (bytes: Uint8Array): PublicKey => keys.of(bytes);

/** Either form (our own signers may send the uncompressed one), with signatureFromBytes's checks. */
const parseSignature = (bytes: Uint8Array): Signature => signatureFromEitherForm(bls, bytes);

function tryParseSignature(bytes: Uint8Array): Signature | null {
  try {
    return parseSignature(bytes);
  } catch {
    return null;
  }
}

/** A signature as avalanchego accepts one from a signer: parsed, in the subgroup, not infinity. */
function acceptedSignature(bytes: Uint8Array): Signature | null {
  return isInfinityEncoding(bytes) ? null : tryParseSignature(bytes);
}

/** A sum of keys and the sum of their signatures. */
type Sum = { pk: PublicKey; sig: Signature };

/** Σ pk and Σ sig (a single pair is its own sum). */
function addUp(pks: PublicKey[], sigs: Signature[]): Sum {
  return {
    pk: pks.length === 1 ? pks[0]! : bls.aggregatePublicKeys(pks),
    sig: sigs.length === 1 ? sigs[0]! : bls.aggregateSignatures(sigs),
  };
}

/**
 * The optimistic per-arrival step: each signature is only decoded (decompressed, or read in the
 * uncompressed form; on the curve, not infinity) and added to the running sum; its subgroup check
 * waits for the final check, made once on the aggregate (foldAndCheck). That is the check
 * avalanchego makes of a signed message (warp BitSetSignature.Verify parses only the aggregate,
 * with bls.SignatureFromBytes: Uncompress + SigValidate), and it costs ~25 µs per signature here
 * instead of ~65 µs (bench/bls-backends.ts), ~1.5 µs for the uncompressed form our own signers
 * send (no square root to take). A signature outside the subgroup makes the aggregate fail, and
 * bisection (findInvalid, which checks each signature as avalanchego accepts a signer's) names it.
 */
function foldToSum(job: JobOf<'fold'>): { sum: Sum | null; rejected: number[] } {
  const rejected: number[] = [];
  const candidates: Uint8Array[] = [];
  const positions: number[] = [];
  for (let i = 0; i < job.count; i++) {
    const bytes = signatureAt(job, i);
    if (isInfinityEncoding(bytes)) rejected.push(i);
    else {
      candidates.push(bytes);
      positions.push(i);
    }
  }
  const pks: PublicKey[] = [];
  const sigs: Signature[] = [];
  if (candidates.length > 0) {
    const summed = bls.sumUncheckedSignatures(candidates);
    const refused = new Set(summed.rejected);
    positions.forEach((i, p) => {
      if (refused.has(p)) rejected.push(i);
      else pks.push(keys.at(job.pks, keyOffset(i)));
    });
    if (summed.sum) sigs.push(summed.sum);
  }
  for (const base of job.base ?? []) {
    const parsed = bls.decodeTrustedSum(base);
    pks.push(parsed.pk);
    sigs.push(parsed.sig);
  }
  rejected.sort((a, b) => a - b);
  return { sum: sigs.length > 0 ? addUp(pks, sigs) : null, rejected };
}

/** A fold's sum as it travels back: encoded for the next task (encodeSum). */
const asFoldResult = ({ sum, rejected }: { sum: Sum | null; rejected: number[] }): FoldResult => ({ partial: sum ? bls.encodeSum(sum) : null, rejected });

const fold: Handler<'fold'> = (job) => asFoldResult(foldToSum(job));

/** The sums of keys and signatures a fold accepted (so they decode), for a subset check. */
function sumOfAccepted({ sigs, pks }: SignatureBatch): Sum {
  const { sum, rejected } = bls.sumUncheckedSignatures(sigs);
  if (sum === undefined || rejected.length > 0) throw new Error('a subset check: a signature no fold accepted');
  return addUp(pks.map(publicKey), [sum]);
}

/**
 * A subset of signatures that were each accepted by a fold (so they decode): the running sums,
 * plus the added ones, minus the removed ones. It is checked as the final check is: the subgroup
 * check of the aggregate, one pairing. Two signatures outside the subgroup can sum to a point
 * inside it; a subset that keeps one of them fails there.
 */
function subsetSum(job: { sums: readonly Sum[]; add: SignatureBatch; remove: SignatureBatch }): Sum {
  const terms: Sum[] = [...job.sums];
  if (job.add.sigs.length > 0) terms.push(sumOfAccepted(job.add));
  // What leaves is summed and negated once (Σ − s = Σ + (−s)): its keys come from the cache, where
  // parsing each negated key would repeat its checks (~40 µs a key with blst).
  if (job.remove.sigs.length > 0) terms.push(bls.negateSum(sumOfAccepted(job.remove)));
  if (terms.length === 0) throw new Error('a subset check: no signatures to check');
  return addUp(
    terms.map((t) => t.pk),
    terms.map((t) => t.sig),
  );
}

/** A foldAndCheck job's fold, and the aggregate its check is about (none when something was rejected). */
function foldForCheck(job: JobOf<'foldAndCheck'>): { folded: FoldResult; aggregate: Sum | null } {
  const summed = foldToSum(job);
  const { sum, rejected } = summed;
  const folded = asFoldResult(summed);
  if (sum === null || rejected.length > 0) return { folded, aggregate: null };
  // With a subset named, only the fewest signers' sum is checked: it alone goes into the message.
  // The rest is left unchecked, as answers held in reserve are; their validity proves nothing
  // about the subset's (unblinded sums: two bad signatures can cancel out across it).
  const subset = job.subset;
  const aggregate = subset ? subsetSum({ sums: subset.fromResult ? [sum] : [], add: subset.add, remove: subset.remove }) : sum;
  return { folded, aggregate };
}

/**
 * A foldAndCheck task: each job folded on its own, then every aggregate to check in one
 * verifyAggregates (the jobs of concurrent aggregations, which the pool batches while every thread
 * is busy: one final exponentiation for them all, ~0.4 ms less each at four, bench/bls-backends.ts).
 * When the batch fails, each is checked alone, so one bad aggregate costs the others one batch
 * check and never their answer. A job whose fold or sum throws fails alone.
 */
function foldAndCheckAll(jobs: readonly JobOf<'foldAndCheck'>[]): Outcome<FoldAndCheckResult>[] {
  const prepared = jobs.map((job) => outcomeOf(() => foldForCheck(job)));
  const toCheck: AggregateSet[] = [];
  prepared.forEach((p, i) => {
    if (p.code === 'success' && p.result.aggregate) toCheck.push({ ...p.result.aggregate, message: jobs[i]!.message });
  });
  const started = performance.now();
  let allValid = false;
  if (toCheck.length > 1) {
    try {
      allValid = bls.verifyAggregates(toCheck);
    } catch {
      // Checked one by one below, where what throws fails its own job.
    }
  }
  return prepared.map((p, i) => {
    if (p.code !== 'success') return p;
    const { folded, aggregate } = p.result;
    if (!aggregate) return { code: 'success', result: { ...folded, check: null } };
    return outcomeOf(() => {
      // The sums hold signatures no one checked for the subgroup: the aggregate gets that check.
      const valid = allValid || bls.verifyAggregate(aggregate.pk, jobs[i]!.message, aggregate.sig);
      return { ...folded, check: { valid, signature: aggregate.sig.bytes, ms: performance.now() - started } };
    });
  });
}

/**
 * Bisection after a failed aggregate check (the whole group is known to hold a bad signature): a
 * group that passes a random-scalar batch check is all good; a failing group is split until the
 * bad signatures stand alone. When the left half of a failing group passes, the right half must
 * fail, so it is split without being checked (single signatures are always checked). With b bad
 * signatures among n this costs about 2·b·log2(n) batch checks instead of n single verifications.
 */
const findInvalid: Handler<'findInvalid'> = (job) => {
  const bad: number[] = [];
  const items: { i: number; pair: { pk: PublicKey; sig: Signature } }[] = [];
  job.sigs.forEach((bytes, i) => {
    const sig = acceptedSignature(bytes);
    if (sig) items.push({ i, pair: { pk: publicKey(job.pks[i]!), sig } });
    else bad.push(i);
  });
  const passes = (group: typeof items): boolean =>
    bls.verifySameMessage(
      job.message,
      group.map((g) => g.pair),
    );
  const search = (group: typeof items, knownBad: boolean): void => {
    if (group.length === 0) return;
    // A single signature is always checked on its own, so no signer is ever blamed by inference.
    if (group.length === 1) {
      if (!passes(group)) bad.push(group[0]!.i);
      return;
    }
    if (!knownBad && passes(group)) return;
    const mid = group.length >> 1;
    const left = group.slice(0, mid);
    const right = group.slice(mid);
    const leftPasses = passes(left);
    if (!leftPasses) search(left, true);
    search(right, leftPasses);
  };
  // Without an unusable encoding the caller's failed check already proves the group bad.
  search(items, bad.length === 0);
  return bad.sort((a, b) => a - b);
};

const verifyEach: Handler<'verifyEach'> = (job) =>
  job.sigs.map((bytes, i) => {
    const sig = tryParseSignature(bytes);
    return sig !== null && bls.verify(publicKey(job.pks[i]!), job.message, sig);
  });

const aggregate: Handler<'aggregate'> = (sigs) => bls.aggregateSignatures(sigs.map(parseSignature)).bytes;

/** Pure-JS BLS behind the handshake: the slow one, hence its own lane in the pool. */
const verifyPossession: Handler<'verifyPossession'> = (job) => {
  // A proof is compressed only (the handshake's hello carries 96 bytes).
  let sig: Signature;
  try {
    sig = bls.signatureFromBytes(job.proof);
  } catch {
    return false;
  }
  let pk: PublicKey;
  try {
    pk = bls.publicKeyFromBytes(job.publicKey);
  } catch {
    return false;
  }
  return bls.verifyWithDst(pk, job.message, sig, job.dst);
};

function outcomeOf<R>(run: () => R): Outcome<R> {
  try {
    return { code: 'success', result: run() };
  } catch (err) {
    return { code: 'error', error: err instanceof Error ? err.message : String(err) };
  }
}

/** What runs a task of kind K: one outcome per job, in order; a job that throws fails alone. */
type TaskHandler<K extends JobKind> = (jobs: readonly JobOf<K>[]) => Outcome<ResultOf<K>>[];

/** Jobs that gain nothing from their task-mates run one after the other. */
const eachJob =
  <K extends JobKind>(handler: Handler<K>): TaskHandler<K> =>
  (jobs) =>
    jobs.map((job) => outcomeOf(() => handler(job)));

const tasks: { [K in JobKind]: TaskHandler<K> } = {
  ping: eachJob(() => true),
  fold: eachJob(fold),
  foldAndCheck: foldAndCheckAll,
  findInvalid: eachJob(findInvalid),
  verifyEach: eachJob(verifyEach),
  aggregate: eachJob(aggregate),
  verifyPossession: eachJob(verifyPossession),
};

/** Runs every job of the task; one that throws fails alone, its task-mates still run. */
export default function runTask<K extends JobKind>(task: Task<K>): TaskResult<K> {
  const startedAt = preciseNow();
  const outcomes = (tasks[task.kind] as TaskHandler<K>)(task.jobs);
  return { outcomes, startedAt, finishedAt: preciseNow() };
}
