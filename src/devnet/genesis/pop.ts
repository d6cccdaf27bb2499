// Proofs of possession for devnet keys. Only @noble/curves can sign under the _POP_ DST (blst
// hard-codes the _SIG_ one) and it takes about 20 ms per proof, so a genesis computes as few as
// it can (see build.ts) and this cache keeps tests that rebuild the same seed from paying
// again. Bounded: the oldest entry goes first.
import { nobleBackend } from '../../bls/index.js';
import { bytesToHex } from '../../warp/hex.js';

const MAX_ENTRIES = 1024;
const cache = new Map<string, Uint8Array>();

/** The 96-byte proof of possession of the key whose 32-byte secret is `secretKey`. */
export function proofOfPossession(secretKey: Uint8Array): Uint8Array {
  const key = bytesToHex(secretKey);
  const hit = cache.get(key);
  if (hit) return hit;
  const noble = nobleBackend();
  const pop = noble.signProofOfPossession(noble.secretKeyFromBytes(secretKey)).bytes;
  if (cache.size >= MAX_ENTRIES) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(key, pop);
  return pop;
}
