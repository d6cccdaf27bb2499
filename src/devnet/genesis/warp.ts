// Signed Warp messages that a devnet's history needs ready-made: the RegisterL1Validator and
// L1ValidatorWeight messages the L1's validators signed before the P-Chain accepted the
// transactions carrying them. They are signed exactly as an aggregator would produce them:
// canonical set of the L1 at that height, heaviest validators first until the 67% quorum,
// minimal signers bitset, one aggregate signature.
import { CURVE_ORDER } from '../../bls/constants.js';
import type { BlsBackend } from '../../bls/types.js';
import { canonicalSet, type ValidatorEntry } from '../../validators/canonical-set.js';
import type { PublicKeyCache } from '../../validators/key-cache.js';
import { DEFAULT_QUORUM_PERCENTAGE, quorumReached } from '../../validators/quorum.js';
import { encodeSigners } from '../../warp/bitset.js';
import { bytesToHex } from '../../warp/hex.js';
import { encodeAddressedCall } from '../../warp/payload.js';
import { encodeSignedMessage } from '../../warp/signed-message.js';
import { newUnsignedMessage, type UnsignedMessage } from '../../warp/unsigned-message.js';
import { l1EntriesAt } from './history.js';
import type { NetworkIdentities } from './identities.js';
import { bytesToScalar, scalarToBytes } from './keys.js';
import type { L1ValidatorRecord } from './types.js';

/**
 * Signs `unsigned` with enough of `validators` (keyless entries included, as they count in the
 * total) to reach `quorumPercentage`. `secretKeys` maps a compressed public key (hex, no 0x) to
 * its 32-byte secret. `keyCache` (for `bls`) saves re-parsing keys across several signings.
 * Returns the signed message bytes.
 */
function signOverQuorum(
  unsigned: UnsignedMessage,
  validators: readonly ValidatorEntry[],
  secretKeys: ReadonlyMap<string, Uint8Array>,
  bls: BlsBackend,
  quorumPercentage: number = DEFAULT_QUORUM_PERCENTAGE,
  keyCache?: PublicKeyCache,
): Uint8Array {
  const set = canonicalSet(validators, bls, keyCache);
  const byWeight = set.validators.map((v, index) => ({ index, v })).sort((a, b) => (b.v.weight > a.v.weight ? 1 : b.v.weight < a.v.weight ? -1 : a.index - b.index));
  const signers: number[] = [];
  let signedWeight = 0n;
  // Σ sk_i·H(m) = (Σ sk_i)·H(m): one signing with the summed secret gives the very aggregate
  // that signing with each key and adding the signatures would, at the cost of one signature.
  let summedSecret = 0n;
  for (const { index, v } of byWeight) {
    if (quorumReached(signedWeight, set.totalWeight, quorumPercentage)) break;
    const secret = secretKeys.get(v.publicKeyHex);
    if (!secret) continue;
    signers.push(index);
    signedWeight += v.weight;
    summedSecret = (summedSecret + bytesToScalar(secret)) % CURVE_ORDER;
  }
  if (!quorumReached(signedWeight, set.totalWeight, quorumPercentage) || summedSecret === 0n) {
    throw new Error(`devnet keys hold ${signedWeight} of ${set.totalWeight} weight: not enough to sign at ${quorumPercentage}%`);
  }
  const signature = bls.sign(bls.secretKeyFromBytes(scalarToBytes(summedSecret)), unsigned.bytes).bytes;
  return encodeSignedMessage(unsigned, encodeSigners(signers), signature);
}

/** Index of secrets by compressed public key hex, for signOverQuorum. */
function secretKeyIndex(keys: Iterable<{ publicKey: Uint8Array; secretKey: Uint8Array }>): Map<string, Uint8Array> {
  const index = new Map<string, Uint8Array>();
  for (const k of keys) index.set(bytesToHex(k.publicKey), k.secretKey);
  return index;
}

/** Signs a message from the L1's validator manager with the L1's validators at a height. */
export type ManagerSigner = (payload: Uint8Array, height: number) => Uint8Array;

/**
 * A ManagerSigner over `records`, read at each signing (the history adds validators between
 * signings), with the secrets of `keys`.
 */
export function managerSigner(
  ids: NetworkIdentities,
  records: readonly L1ValidatorRecord[],
  keys: Iterable<{ publicKey: Uint8Array; secretKey: Uint8Array }>,
  bls: BlsBackend,
  keyCache: PublicKeyCache,
): ManagerSigner {
  const secrets = secretKeyIndex(keys);
  return (payload, height) => {
    const unsigned = newUnsignedMessage(ids.networkId, ids.blockchainId, encodeAddressedCall(ids.managerAddress, payload));
    return signOverQuorum(unsigned, l1EntriesAt(records, height), secrets, bls, undefined, keyCache);
  };
}
