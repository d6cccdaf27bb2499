// What the aggregator asks of state shared with other replicas (shared-state/ implements it over
// Redis; the service wires it): signatures other replicas proved, and one collection per
// identical request across replicas. Every call copes with an unavailable Redis by itself
// (empty reads, no lease), so the aggregator never fails because of it.
import { createHash } from 'node:crypto';
import type { CanonicalSet } from '../validators/canonical-set.js';
import type { Deadline } from './deadline.js';
import type { SignatureCache } from './signature-cache.js';

/** This replica collects for a request key; release once the signatures are written. */
interface SharedClaim {
  release(): Promise<void>;
}

export interface SharedSignatures {
  /** Signatures replicas proved for a message, by public-key hex. Never rejects. */
  read(messageIdHex: string): Promise<ReadonlyMap<string, Uint8Array>>;
  /** Adds proven signatures; resolves once written or given up. Never rejects. */
  write(messageIdHex: string, sigs: ReadonlyMap<string, Uint8Array>): Promise<void>;
  /** Deletes an entry that failed its check. */
  remove(messageIdHex: string, pkHex: string): void;
  /**
   * Resolves with a claim when this replica is to collect for `requestKey`; with null when the
   * signatures `enough` looks at reach the target (another replica collected them) or when it
   * must collect without a lease (Redis unavailable, or `waitUntil` passed).
   */
  claim(requestKey: string, opts: { enough(): Promise<boolean>; waitUntil: number; signal: AbortSignal }): Promise<SharedClaim | null>;
}

/** What identifies a request across replicas: the list, with the height as chosen. */
interface SharedRequestKey {
  messageId: Uint8Array;
  justification: Uint8Array;
  subnetId: Uint8Array;
  pChainHeight: number;
  quorumPercentage: number;
  quorumPercentageBuffer: number;
}

function sharedRequestKey(k: SharedRequestKey): string {
  const h = createHash('sha256');
  for (const part of [k.messageId, k.justification, k.subnetId]) h.update(`${part.length}:`).update(part);
  h.update(`/${k.pChainHeight}/${k.quorumPercentage}/${k.quorumPercentageBuffer}`);
  return h.digest('hex').slice(0, 40);
}

/** The weight of the set's validators whose signatures `sigs` holds. */
function weightIn(sigs: ReadonlyMap<string, Uint8Array>, set: CanonicalSet): bigint {
  let weight = 0n;
  for (const v of set.validators) if (sigs.has(v.publicKeyHex)) weight += v.weight;
  return weight;
}

/**
 * The signatures a collection starts with: this replica's cache, and, with shared state and
 * unless that alone reaches the target, the shared cache's, after waiting (within the request's
 * deadline) for another replica collecting the same request. `claim`: this replica collects
 * under the lease and releases it once done.
 */
export async function startingSignatures(
  input: { local: SignatureCache; shared?: SharedSignatures; messageIdHex: string; key: SharedRequestKey; set: CanonicalSet; targetWeight: bigint; deadline: Deadline; requestTimeoutMs: number },
): Promise<{ cached: ReadonlyMap<string, Uint8Array>; claim: SharedClaim | null }> {
  const { local, shared, messageIdHex, set, targetWeight, deadline } = input;
  let cached = local.get(messageIdHex);
  const reaches = (sigs: ReadonlyMap<string, Uint8Array>): boolean => sigs.size > 0 && weightIn(sigs, set) >= targetWeight;
  if (!shared || reaches(cached)) return { cached, claim: null };
  const enough = async (): Promise<boolean> => {
    const remote = await shared.read(messageIdHex);
    const merged = new Map(local.get(messageIdHex));
    for (const v of set.validators) {
      const sig = remote.get(v.publicKeyHex);
      if (sig && !merged.has(v.publicKeyHex)) merged.set(v.publicKeyHex, sig);
    }
    cached = merged;
    return reaches(merged);
  };
  // Waiting for another replica leaves time to collect alone should it never finish.
  const waitUntil = deadline.collectUntil - Math.min(input.requestTimeoutMs, (deadline.collectUntil - Date.now()) / 2);
  deadline.phase = 'an identical request was being collected by another replica';
  const claim = await shared.claim(sharedRequestKey(input.key), { enough, waitUntil, signal: deadline.signal });
  return { cached, claim };
}

