// BLS work that must stay off the event loop. Piscina runs these in worker threads; each worker
// loads its BLS backend once (named in workerData) and keeps the public keys it has decompressed,
// so a validator set's keys cost their decompression once per worker, not once per request.
// Parsing a key repeats its checks (~70 µs with blst), which is why each worker caches them.
import { workerData } from 'node:worker_threads';
import { loadBackend } from '../src/bls/index.js';
import type { PublicKey, Signature } from '../src/bls/types.js';

const bls = loadBackend((workerData as { backend?: 'blst' | 'noble' } | undefined)?.backend ?? 'blst');

const MAX_CACHED_KEYS = 20_000;
const keyCache = new Map<string, PublicKey>();

function publicKey(bytes: Uint8Array): PublicKey {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  let pk = keyCache.get(hex);
  if (!pk) {
    pk = bls.publicKeyFromBytes(bytes);
    if (keyCache.size >= MAX_CACHED_KEYS) keyCache.delete(keyCache.keys().next().value as string);
    keyCache.set(hex, pk);
  }
  return pk;
}

function tryParseSignature(bytes: Uint8Array): Signature | null {
  try {
    return bls.signatureFromBytes(bytes);
  } catch {
    return null;
  }
}

/** Lets the pool start every thread (and load the backend) before the first real task. */
export function ping(): boolean {
  return true;
}

/**
 * A running aggregate: Σ pk_i and Σ sig_i over signatures that each passed avalanchego's
 * acceptance check (decompression, curve, subgroup), as encodeSum bytes. The final check is the
 * one avalanchego makes on a signed message: one pairing of the summed key against the summed
 * signature. When it fails, findInvalid's random-scalar bisection names the bad signatures one
 * by one. (Blinding every arrival with a random scalar, to prove each signature on its own in
 * the final pairing, costs 2.5–5x more per signature in the small batches answers arrive in,
 * bench/bls-backends.ts; it would only matter for colluding signers whose bad signatures cancel
 * out, and their sum is then a valid signature by their own keys.)
 */
export type RunningSum = Uint8Array;

export interface FoldTask {
  sigs: Uint8Array[];
  pks: Uint8Array[];
  /** Earlier running sums to merge into the result, so few are left to add at the end. */
  base?: RunningSum[];
}
export interface FoldResult {
  /** The new running sum (base included), or null when nothing was accepted and there was no base. */
  partial: RunningSum | null;
  /** Indices (into the task's sigs) that failed to parse, are outside the subgroup or are infinity. */
  rejected: number[];
}

/** Infinity is a valid encoding but never one signer's valid signature (sk would be 0). */
function isInfinityEncoding(bytes: Uint8Array): boolean {
  return bytes.length > 0 && (bytes[0]! & 0x40) !== 0;
}

/** Σ pk and Σ sig (a single pair is its own sum). */
function addUp(pks: PublicKey[], sigs: Signature[]): { pk: PublicKey; sig: Signature } {
  return {
    pk: pks.length === 1 ? pks[0]! : bls.aggregatePublicKeys(pks),
    sig: sigs.length === 1 ? sigs[0]! : bls.aggregateSignatures(sigs),
  };
}

/** The per-arrival step: check each signature as avalanchego accepts one, and add it (and the base sums) up. */
export function fold(task: FoldTask): FoldResult {
  const rejected: number[] = [];
  const pks: PublicKey[] = [];
  const sigs: Signature[] = [];
  task.sigs.forEach((bytes, i) => {
    const sig = isInfinityEncoding(bytes) ? null : tryParseSignature(bytes);
    if (sig === null) {
      rejected.push(i);
      return;
    }
    pks.push(publicKey(task.pks[i]!));
    sigs.push(sig);
  });
  for (const base of task.base ?? []) {
    const parsed = bls.decodeTrustedSum(base);
    pks.push(parsed.pk);
    sigs.push(parsed.sig);
  }
  return { partial: sigs.length > 0 ? bls.encodeSum(addUp(pks, sigs)) : null, rejected };
}

/** Many folds in one task (src/aggregator/task-batcher.ts): each job's result, or what it threw. */
export function foldMany(jobs: FoldTask[]): ({ ok: true; value: FoldResult } | { ok: false; error: string })[] {
  return jobs.map((job) => {
    try {
      return { ok: true as const, value: fold(job) };
    } catch (err) {
      return { ok: false as const, error: err instanceof Error ? err.message : String(err) };
    }
  });
}

export interface FinalizeTask {
  message: Uint8Array;
  /** Running sums returned by fold. */
  parts: RunningSum[];
}

/** Adds up the running sums and checks the aggregate with one pairing, as avalanchego will. */
export function finalize(task: FinalizeTask): { valid: boolean; signature: Uint8Array } {
  if (task.parts.length === 0) throw new Error('finalize: no signatures to check');
  const parts = task.parts.map((p) => bls.decodeTrustedSum(p));
  const { pk, sig } = addUp(parts.map((p) => p.pk), parts.map((p) => p.sig));
  return { valid: bls.verify(pk, task.message, sig), signature: sig.bytes };
}

export interface FindInvalidTask {
  message: Uint8Array;
  sigs: Uint8Array[];
  pks: Uint8Array[];
}

/**
 * Bisection after a failed aggregate check (the whole group is known to hold a bad signature): a
 * group that passes a random-scalar batch check is all good; a failing group is split until the
 * bad signatures stand alone. When the left half of a failing group passes, the right half must
 * fail, so it is split without being checked (single signatures are always checked). With b bad signatures among n this costs about
 * 2·b·log2(n) batch checks instead of n single verifications.
 */
export function findInvalid(task: FindInvalidTask): number[] {
  const bad: number[] = [];
  const items: { i: number; pair: { pk: PublicKey; sig: Signature } }[] = [];
  task.sigs.forEach((bytes, i) => {
    const sig = isInfinityEncoding(bytes) ? null : tryParseSignature(bytes);
    if (sig) items.push({ i, pair: { pk: publicKey(task.pks[i]!), sig } });
    else bad.push(i);
  });
  const passes = (group: typeof items): boolean => bls.verifySameMessage(task.message, group.map((g) => g.pair));
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
}

export interface VerifyEachTask {
  message: Uint8Array;
  sigs: Uint8Array[];
  pks: Uint8Array[];
}

/** The icm-services way, kept for the benchmark's comparison: one full verification per signature. */
export function verifyEach(task: VerifyEachTask): boolean[] {
  return task.sigs.map((bytes, i) => {
    const sig = tryParseSignature(bytes);
    return sig !== null && bls.verify(publicKey(task.pks[i]!), task.message, sig);
  });
}

/** Plain sum of already-verified signatures (perSignatureVerify's last step). */
export function aggregate(task: { sigs: Uint8Array[] }): Uint8Array {
  return bls.aggregateSignatures(task.sigs.map((b) => bls.signatureFromBytes(b))).bytes;
}

export interface PossessionTask {
  publicKey: Uint8Array;
  message: Uint8Array;
  proof: Uint8Array;
  dst: string;
}

/** A peer's proof of key possession under our own DST (pure-JS BLS: the slow one). */
export function verifyPossession(task: PossessionTask): boolean {
  const sig = tryParseSignature(task.proof);
  if (!sig) return false;
  let pk: PublicKey;
  try {
    pk = bls.publicKeyFromBytes(task.publicKey);
  } catch {
    return false;
  }
  return bls.verifyWithDst(pk, task.message, sig, task.dst);
}
