// BLS work that must stay off the event loop. Piscina runs these in worker threads; each worker
// loads its BLS backend once (named in workerData) and keeps the public keys it has decompressed,
// so a validator set's keys cost their decompression once per worker, not once per request.
// Parsing a key repeats its checks (~70 µs with blst), which is why each worker caches them.
import { workerData } from 'node:worker_threads';
import { loadBackend } from '../src/bls/index.js';
import { BlsError, type BlsBackend, type PublicKey, type Signature } from '../src/bls/types.js';

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
 * A running aggregate: Σ sig_i (what goes into the signed message) and, with a fresh random
 * 64-bit scalar r_i per signature, Σ r_i·pk_i and Σ r_i·sig_i. Checking the blinded pair with one
 * pairing proves every signature in it individually valid (a forged one survives with
 * probability 2^-64); a plain Σ pk / Σ sig check would let two bad signatures that cancel out
 * pass, and they would then be cached as if each were valid.
 */
export interface PartialAggregate {
  sig: Uint8Array;
  blindedPk: Uint8Array;
  blindedSig: Uint8Array;
}

export interface FoldTask {
  sigs: Uint8Array[];
  pks: Uint8Array[];
  /** Earlier running aggregates to merge into the result, so few are left to sum at the end. */
  base?: PartialAggregate[];
}
export interface FoldResult {
  /** The new running aggregate (base included), or null when nothing was accepted and there was no base. */
  partial: PartialAggregate | null;
  /** Indices (into the task's sigs) that failed to parse, are outside the subgroup or are infinity. */
  rejected: number[];
}

/** Infinity is a valid encoding but never one signer's valid signature (sk would be 0). */
function isInfinityEncoding(bytes: Uint8Array): boolean {
  return bytes.length > 0 && (bytes[0]! & 0x40) !== 0;
}

/** Indices of signatures that cannot take part in a blinded aggregate. */
function unusable(sigs: readonly Uint8Array[]): number[] {
  const bad: number[] = [];
  sigs.forEach((bytes, i) => {
    if (isInfinityEncoding(bytes) || tryParseSignature(bytes) === null) bad.push(i);
  });
  return bad;
}

function sumPartials(parts: readonly PartialAggregate[]): PartialAggregate {
  if (parts.length === 1) return parts[0]!;
  return {
    sig: bls.aggregateSignatures(parts.map((p) => bls.signatureFromBytes(p.sig))).bytes,
    blindedPk: bls.aggregatePublicKeys(parts.map((p) => bls.publicKeyFromBytes(p.blindedPk))).bytes,
    blindedSig: bls.aggregateSignatures(parts.map((p) => bls.signatureFromBytes(p.blindedSig))).bytes,
  };
}

/**
 * The per-arrival step: subgroup-check each signature, blind it and fold it (and the base
 * aggregates) into one running aggregate. Bad encodings are found in a second pass only when
 * the batch has one, so honest batches pay for one decompression per signature.
 */
export function fold(task: FoldTask): FoldResult {
  let rejected: number[] = [];
  let blinded: ReturnType<BlsBackend['blindedAggregate']> | null = null;
  const pairsOf = (skip: ReadonlySet<number>) =>
    task.sigs.flatMap((sig, i) => (skip.has(i) ? [] : [{ pk: publicKey(task.pks[i]!), sig }]));
  if (task.sigs.length > 0) {
    try {
      blinded = bls.blindedAggregate(pairsOf(new Set()));
    } catch (err) {
      if (!(err instanceof BlsError)) throw err;
      rejected = unusable(task.sigs);
      const pairs = pairsOf(new Set(rejected));
      blinded = pairs.length > 0 ? bls.blindedAggregate(pairs) : null;
    }
  }
  const parts: PartialAggregate[] = [...(task.base ?? [])];
  if (blinded) parts.push({ sig: blinded.sig.bytes, blindedPk: blinded.blindedPk.bytes, blindedSig: blinded.blindedSig.bytes });
  return { partial: parts.length > 0 ? sumPartials(parts) : null, rejected };
}

export interface FinalizeTask {
  message: Uint8Array;
  /** Running aggregates returned by fold. */
  parts: PartialAggregate[];
}

/** Sums the running aggregates and checks every signature in them with one pairing. */
export function finalize(task: FinalizeTask): { valid: boolean; signature: Uint8Array } {
  if (task.parts.length === 0) throw new Error('finalize: no signatures to check');
  const total = sumPartials(task.parts);
  const valid = bls.verify(bls.publicKeyFromBytes(total.blindedPk), task.message, bls.signatureFromBytes(total.blindedSig));
  return { valid, signature: total.sig };
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
