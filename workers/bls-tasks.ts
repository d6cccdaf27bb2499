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

/** A running aggregate as points, ready to add to. */
interface ParsedPartial {
  sig: Signature;
  blindedPk: PublicKey;
  blindedSig: Signature;
}

/**
 * Running aggregates this worker built, by their exact bytes. Each fold merges the previous
 * running aggregate into the next; when that one was built here (piscina mostly hands
 * consecutive tasks to the same idle thread), its points are reused instead of being
 * decompressed and subgroup-checked again (~0.3 ms per aggregate; measured with
 * bench/quorum.ts, README "Performance"). Identical bytes are identical points, built here from
 * checked ones, so no check is skipped. Bounded; the oldest are dropped first.
 */
const MAX_CACHED_PARTIALS = 256;
const partialCache = new Map<string, ParsedPartial>();

function partialKey(p: PartialAggregate): string {
  const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
  return hex(p.sig) + hex(p.blindedPk) + hex(p.blindedSig);
}

function parsePartial(p: PartialAggregate): ParsedPartial {
  return (
    partialCache.get(partialKey(p)) ?? {
      sig: bls.signatureFromBytes(p.sig),
      blindedPk: bls.publicKeyFromBytes(p.blindedPk),
      blindedSig: bls.signatureFromBytes(p.blindedSig),
    }
  );
}

function sumParsed(parts: readonly ParsedPartial[]): ParsedPartial {
  if (parts.length === 1) return parts[0]!;
  return {
    sig: bls.aggregateSignatures(parts.map((p) => p.sig)),
    blindedPk: bls.aggregatePublicKeys(parts.map((p) => p.blindedPk)),
    blindedSig: bls.aggregateSignatures(parts.map((p) => p.blindedSig)),
  };
}

/** The bytes of a running aggregate built here, remembered for the next merge. */
function rememberPartial(parsed: ParsedPartial): PartialAggregate {
  const bytes = { sig: parsed.sig.bytes, blindedPk: parsed.blindedPk.bytes, blindedSig: parsed.blindedSig.bytes };
  const key = partialKey(bytes);
  partialCache.delete(key);
  partialCache.set(key, parsed);
  if (partialCache.size > MAX_CACHED_PARTIALS) partialCache.delete(partialCache.keys().next().value as string);
  return bytes;
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
  const parts: ParsedPartial[] = (task.base ?? []).map(parsePartial);
  if (blinded) parts.push(blinded);
  return { partial: parts.length > 0 ? rememberPartial(sumParsed(parts)) : null, rejected };
}

export interface FinalizeTask {
  message: Uint8Array;
  /** Running aggregates returned by fold. */
  parts: PartialAggregate[];
}

/** Sums the running aggregates and checks every signature in them with one pairing. */
export function finalize(task: FinalizeTask): { valid: boolean; signature: Uint8Array } {
  if (task.parts.length === 0) throw new Error('finalize: no signatures to check');
  const total = sumParsed(task.parts.map(parsePartial));
  return { valid: bls.verify(total.blindedPk, task.message, total.blindedSig), signature: total.sig.bytes };
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
