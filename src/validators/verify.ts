// Verification of a signed Warp message against a validator set, in avalanchego's order
// (vms/platformvm/warp/signature.go, protocol.md section 4.6): network ID, signers bitset
// (minimal, in range), weight against quorum, then one pairing check of the aggregate signature
// against the aggregate of the signers' keys over the unsigned message bytes.
import { loadBackend } from '../bls/index.js';
import type { BlsBackend, PublicKey } from '../bls/types.js';
import { decodeSigners } from '../warp/bitset.js';
import { parseSignedMessage, type SignedMessage } from '../warp/signed-message.js';
import { canonicalSet, isCanonicalSet, type CanonicalSet, type ValidatorEntry } from './canonical-set.js';
import { checkQuorumPercentage, DEFAULT_QUORUM_PERCENTAGE, quorumReached, requiredWeight } from './quorum.js';

export interface VerifyResult {
  valid: boolean;
  /** Weight of the validators the bitset names (0 when the bitset itself is bad). */
  signedWeight: bigint;
  /** The set's total weight, keyless validators included. */
  totalWeight: bigint;
  /** Canonical indices of the signers, ascending. */
  signers: number[];
  /** Why the message is not valid; absent when it is. */
  reason?: string;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Never throws for a bad message: every problem with `message` comes back as `valid: false` with
 * a reason. Bad arguments (a quorum outside 0–100, a validator list that cannot form a
 * canonical set) are the caller's mistake and throw QuorumPercentageError / ValidatorSetError.
 */
export function verifySignedMessage(
  message: Uint8Array | SignedMessage,
  validators: ValidatorEntry[] | CanonicalSet,
  quorumPercentage: number = DEFAULT_QUORUM_PERCENTAGE,
  networkId?: number,
  bls: BlsBackend = loadBackend(),
): VerifyResult {
  checkQuorumPercentage(quorumPercentage);
  const set = isCanonicalSet(validators) ? validators : canonicalSet(validators, bls);
  const totalWeight = set.totalWeight;
  const invalid = (reason: string, signers: number[] = [], signedWeight = 0n): VerifyResult => ({
    valid: false,
    signedWeight,
    totalWeight,
    signers,
    reason,
  });

  try {
    let msg: SignedMessage;
    if (message instanceof Uint8Array) {
      try {
        msg = parseSignedMessage(message);
      } catch (err) {
        return invalid(`malformed signed message: ${errorText(err)}`);
      }
    } else {
      msg = message;
    }

    if (networkId !== undefined && msg.unsigned.networkId !== networkId) {
      return invalid(`network ID is ${msg.unsigned.networkId}, expected ${networkId}`);
    }

    let signers: number[];
    try {
      signers = decodeSigners(msg.signers, set.validators.length);
    } catch (err) {
      return invalid(`bad signers bitset: ${errorText(err)}`);
    }

    let signedWeight = 0n;
    for (const i of signers) signedWeight += set.validators[i]!.weight;

    if (!quorumReached(signedWeight, totalWeight, quorumPercentage)) {
      const needed = requiredWeight(totalWeight, quorumPercentage);
      return invalid(
        `insufficient weight: signers hold ${signedWeight} of ${totalWeight}, ` +
          `${quorumPercentage}% quorum needs ${needed}`,
        signers,
        signedWeight,
      );
    }
    if (signers.length === 0) return invalid('no signers', signers, signedWeight);

    let keys: PublicKey[];
    try {
      // A set parsed by another backend holds that backend's key handles: re-parse the bytes.
      keys = signers.map((i) => {
        const pk = set.validators[i]!.publicKey;
        return set.backend === bls.name ? pk : bls.publicKeyFromBytes(pk.bytes);
      });
    } catch (err) {
      return invalid(`a signer's public key is invalid: ${errorText(err)}`, signers, signedWeight);
    }

    let signature;
    try {
      signature = bls.signatureFromBytes(msg.signature);
    } catch (err) {
      return invalid(`aggregate signature is not a valid signature: ${errorText(err)}`, signers, signedWeight);
    }

    const aggregateKey = bls.aggregatePublicKeys(keys);
    if (!bls.verify(aggregateKey, msg.unsigned.bytes, signature)) {
      return invalid('aggregate signature does not verify against the signers\' keys', signers, signedWeight);
    }
    return { valid: true, signedWeight, totalWeight, signers };
  } catch (err) {
    return invalid(`verification failed: ${errorText(err)}`);
  }
}
