// BlsBackend over @chainsafe/blst (native, 20-40x faster than noble). blst hard-codes the
// BLS_SIG_..._POP_ DST, which is Avalanche's signature DST, so Warp signing and verification run
// natively; proofs of possession and caller-chosen DSTs go through the noble backend.
//
// blst validates nothing unless asked, so every parse here asks explicitly, and every
// aggregate/verify of handles made here skips validation (it was done at parse time).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Blst from '@chainsafe/blst';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { PUBLIC_KEY_LENGTH, SECRET_KEY_LENGTH, SIGNATURE_LENGTH, SIGNATURE_UNCOMPRESSED_LENGTH } from './constants.js';
import { expectLength, ownCopy, parseSecretScalar, REASON } from './input-checks.js';
import { BlsError, type BlsBackend, type PublicKey, type SecretKey, type Signature } from './types.js';

type BlstModule = typeof Blst;

/** The native binding is missing, cannot load on this platform, or computes wrong answers. */
export class BlstUnavailableError extends Error {
  override readonly name = 'BlstUnavailableError';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`@chainsafe/blst is unavailable: ${reason}`, options);
  }
}

// Known answer (avalanchejs' BLS test vector): a binding that loads but derives a different
// public key is treated as broken rather than trusted with signatures.
/** encodeSum's layout: uncompressed Σ pk (x‖y) then uncompressed Σ sig. */
const UNCOMPRESSED_PK_BYTES = 96;
const SUM_BYTES = UNCOMPRESSED_PK_BYTES + 192;
const FP_BYTES = 48;
const INFINITY_FLAG = 0x40;
const P = bls12_381.fields.Fp.ORDER;

/**
 * Negates an uncompressed point in place: y → p − y for each y coordinate (one in G1, two in G2,
 * the last `yParts` field elements, big-endian). Infinity is its own negation.
 */
function negateUncompressed(bytes: Uint8Array, yParts: number): Uint8Array {
  if ((bytes[0]! & INFINITY_FLAG) !== 0) return bytes;
  for (let part = 0; part < yParts; part++) {
    const at = bytes.length - (part + 1) * FP_BYTES;
    const y = bytesToNumberBE(bytes.subarray(at, at + FP_BYTES));
    if (y !== 0n) bytes.set(numberToBytesBE(P - y, FP_BYTES), at);
  }
  return bytes;
}

const KNOWN_SECRET = '233428aaadf8a5d11ebba263d97b85a286750540f4abd04f109321e07b746277';
const KNOWN_PUBLIC =
  'adf6062df01fc18456140f7126567a84834d85b2af70454a7aacad932b92d0d7d0dab897d2f9bf46021511969f5b62f8';

/**
 * Loads the native module through require (it is CommonJS) so that a missing or broken binary
 * surfaces as a BlstUnavailableError instead of failing the import of this file.
 */
export function loadBlstModule(
  requireModule: (id: string) => unknown = createRequire(import.meta.url),
): BlstModule {
  let blst: BlstModule;
  try {
    blst = requireModule('@chainsafe/blst') as BlstModule;
  } catch (error) {
    throw new BlstUnavailableError(error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
  try {
    const derived = blst.SecretKey.fromBytes(Buffer.from(KNOWN_SECRET, 'hex')).toPublicKey().toBytes();
    if (Buffer.from(derived).toString('hex') !== KNOWN_PUBLIC) {
      throw new Error('derived the wrong public key for a known secret key');
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new BlstUnavailableError(`self-test failed: ${message}`, { cause: error });
  }
  return blst;
}

/** blst error codes (Error#code) onto the reasons both backends share. */
function blstReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'BLST_POINT_NOT_IN_GROUP':
      return REASON.notInSubgroup;
    case 'BLST_POINT_NOT_ON_CURVE':
      return REASON.notOnCurve;
    case 'BLST_PK_IS_INFINITY':
      return REASON.infinity;
    case 'BLST_BAD_ENCODING':
      return REASON.badEncoding;
    default:
      return `${REASON.badEncoding} (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * @param noble the backend used for proofs of possession and caller-chosen DSTs.
 * @param blst the loaded native module (loadBlstModule() by default); throws
 *   BlstUnavailableError when it cannot load.
 */
export function createBlstBackend(noble: BlsBackend, blst: BlstModule = loadBlstModule()): BlsBackend {
  // Handles are opaque outside their backend; one from the other backend is a wiring bug that
  // must fail loudly (the native code would otherwise reject it with an obscure message).
  const pkOf = (pk: PublicKey): Blst.PublicKey => {
    if (!(pk.native instanceof blst.PublicKey)) {
      throw new TypeError('this PublicKey was not made by the blst BLS backend');
    }
    return pk.native;
  };
  const sigOf = (sig: Signature): Blst.Signature => {
    if (!(sig.native instanceof blst.Signature)) {
      throw new TypeError('this Signature was not made by the blst BLS backend');
    }
    return sig.native;
  };
  const skOf = (sk: SecretKey): Blst.SecretKey => {
    if (!(sk.native instanceof blst.SecretKey)) {
      throw new TypeError('this SecretKey was not made by the blst BLS backend');
    }
    return sk.native;
  };

  const makePublicKey = (native: Blst.PublicKey, bytes: Uint8Array = native.toBytes(true)): PublicKey => ({
    bytes,
    native,
  });
  const makeSignature = (native: Blst.Signature, bytes: Uint8Array = native.toBytes(true)): Signature => ({
    bytes,
    native,
  });
  const makeSecretKey = (native: Blst.SecretKey): SecretKey => ({ bytes: native.toBytes(), native });

  // Signatures the noble backend made for us (PoP, custom DST) rewrapped as blst handles; they
  // are our own, so they are decompressed without re-validation.
  const fromNobleSignature = (sig: Signature): Signature =>
    makeSignature(blst.Signature.fromBytes(sig.bytes), sig.bytes);
  // The other direction: our handles re-parsed by noble (each costs a noble point
  // decompression, acceptable for the rare PoP and handshake checks).
  const nobleKey = (pk: PublicKey): PublicKey => {
    pkOf(pk);
    return noble.publicKeyFromBytes(pk.bytes);
  };
  const nobleSignature = (sig: Signature): Signature => {
    sigOf(sig);
    return noble.signatureFromBytes(sig.bytes);
  };
  const nobleSecret = (sk: SecretKey): SecretKey => {
    skOf(sk);
    return noble.secretKeyFromBytes(sk.bytes);
  };

  const backend: BlsBackend = {
    name: 'blst',

    publicKeyFromBytes(bytes) {
      // Length first: blst also accepts the 96-byte uncompressed form, and must never be
      // handed an empty buffer.
      expectLength(bytes, PUBLIC_KEY_LENGTH, 'publicKey');
      try {
        return makePublicKey(blst.PublicKey.fromBytes(bytes, true), ownCopy(bytes));
      } catch (error) {
        throw new BlsError('publicKey', blstReason(error));
      }
    },

    signatureFromBytes(bytes) {
      expectLength(bytes, SIGNATURE_LENGTH, 'signature');
      try {
        // Subgroup check on, infinity check off: avalanchego's signature acceptance rule.
        return makeSignature(blst.Signature.fromBytes(bytes, true, false), ownCopy(bytes));
      } catch (error) {
        throw new BlsError('signature', blstReason(error));
      }
    },

    signatureFromUncompressed(bytes) {
      // blst's own rule: 192 bytes only with the compression flag clear (and no sort flag).
      expectLength(bytes, SIGNATURE_UNCOMPRESSED_LENGTH, 'signature');
      try {
        return makeSignature(blst.Signature.fromBytes(bytes, true, false));
      } catch (error) {
        throw new BlsError('signature', blstReason(error));
      }
    },

    secretKeyFromBytes(bytes) {
      parseSecretScalar(bytes);
      return makeSecretKey(blst.SecretKey.fromBytes(bytes));
    },

    generateSecretKey() {
      // avalanchego's bls.NewSecretKey: blst KeyGen over 32 bytes of fresh randomness.
      return makeSecretKey(blst.SecretKey.fromKeygen(randomBytes(SECRET_KEY_LENGTH)));
    },

    publicKeyOf(sk) {
      return makePublicKey(skOf(sk).toPublicKey());
    },

    publicKeyUncompressed(pk) {
      // blst's uncompressed form of a non-infinity point carries no flag bits: exactly x‖y.
      return pkOf(pk).toBytes(false);
    },

    signatureUncompressed(sig) {
      return sigOf(sig).toBytes(false);
    },

    sign(sk, message) {
      return makeSignature(skOf(sk).sign(message));
    },

    verify(pk, message, sig) {
      return blst.verify(message, pkOf(pk), sigOf(sig), false, false);
    },

    aggregatePublicKeys(pks) {
      if (pks.length === 0) throw new BlsError('publicKey', 'no public keys to aggregate');
      return makePublicKey(blst.aggregatePublicKeys(pks.map(pkOf), false));
    },

    aggregateSignatures(sigs) {
      if (sigs.length === 0) throw new BlsError('signature', 'no signatures to aggregate');
      return makeSignature(blst.aggregateSignatures(sigs.map(sigOf), false));
    },

    sumUncheckedSignatures(list) {
      const rejected: number[] = [];
      const usable: Uint8Array[] = [];
      const decodable = (bytes: Uint8Array): boolean =>
        bytes instanceof Uint8Array && (bytes.length === SIGNATURE_LENGTH || bytes.length === SIGNATURE_UNCOMPRESSED_LENGTH);
      list.forEach((bytes, i) => {
        // Either form; blst itself refuses a length its compression flag contradicts.
        if (decodable(bytes)) usable.push(bytes);
        else rejected.push(i);
      });
      if (usable.length === 0) return { sum: undefined, rejected };
      if (rejected.length === 0) {
        try {
          // One native call for the whole batch (no handle per signature); curve checked, subgroup not.
          return { sum: makeSignature(blst.aggregateSerializedSignatures(usable, false)), rejected };
        } catch {
          // Some signature does not decode: find which, one by one, below.
        }
      }
      const points: Blst.Signature[] = [];
      list.forEach((bytes, i) => {
        if (!decodable(bytes)) return;
        try {
          points.push(blst.Signature.fromBytes(bytes, false));
        } catch {
          rejected.push(i);
        }
      });
      rejected.sort((a, b) => a - b);
      return { sum: points.length > 0 ? makeSignature(blst.aggregateSignatures(points, false)) : undefined, rejected };
    },

    verifyAggregate(pk, message, sig) {
      // sigGroupcheck on: the subgroup check avalanchego's SignatureFromBytes makes of the aggregate.
      return blst.verify(message, pkOf(pk), sigOf(sig), false, true);
    },

    verifyAggregates(sets) {
      if (sets.length === 0) return false;
      if (sets.length === 1) return backend.verifyAggregate(sets[0]!.pk, sets[0]!.message, sets[0]!.sig);
      // An infinity key verifies nothing (verifyAggregate). blst refuses one in a batch as well
      // (test/bls/verify-aggregates.test.ts); said here so that the rule is ours, not a native detail.
      if (sets.some((set) => (set.pk.bytes[0]! & INFINITY_FLAG) !== 0)) return false;
      // blst draws a random 64-bit scalar per set, and (sigsGroupcheck) makes each signature's
      // subgroup check; keys were checked when parsed or are sums of checked ones.
      return blst.verifyMultipleAggregateSignatures(
        sets.map((set) => ({ msg: set.message, pk: pkOf(set.pk), sig: sigOf(set.sig) })),
        false,
        true,
      );
    },

    verifySameMessage(message, pairs) {
      if (pairs.length === 0) return false;
      // aggregateWithRandomness only takes serialized signatures and re-checks each one; the
      // uncompressed form at least spares it the square roots of decompression. (blst's
      // verifyMultipleAggregateSignatures skips the re-check but costs one Miller loop and one
      // hash per signature: ~5x slower at 1,000.)
      const sets = pairs.map((pair) => ({ pk: pkOf(pair.pk), sig: sigOf(pair.sig).toBytes(false) }));
      let blinded: Blst.PkAndSig;
      try {
        blinded = blst.aggregateWithRandomness(sets);
      } catch {
        // Only an infinity signature can be refused here, and it is never a valid one.
        return false;
      }
      return blst.verify(message, blinded.pk, blinded.sig, false, false);
    },

    encodeSum({ pk, sig }) {
      const out = new Uint8Array(SUM_BYTES);
      out.set(pkOf(pk).toBytes(false), 0);
      out.set(sigOf(sig).toBytes(false), UNCOMPRESSED_PK_BYTES);
      return out;
    },

    negateSum({ pk, sig }) {
      // Uncompressed (x, y) → (x, −y); parsed back without validation flags, as decodeTrustedSum does.
      return {
        pk: makePublicKey(blst.PublicKey.fromBytes(negateUncompressed(pkOf(pk).toBytes(false), 1))),
        sig: makeSignature(blst.Signature.fromBytes(negateUncompressed(sigOf(sig).toBytes(false), 2))),
      };
    },

    decodeTrustedSum(bytes) {
      if (bytes.length !== SUM_BYTES) throw new TypeError(`a running sum is ${SUM_BYTES} bytes, got ${bytes.length}`);
      // No validation flags: these points were summed here from checked ones (~3 µs, against
      // ~110 µs for decompressing and subgroup-checking a signature).
      return {
        pk: makePublicKey(blst.PublicKey.fromBytes(bytes.subarray(0, UNCOMPRESSED_PK_BYTES))),
        sig: makeSignature(blst.Signature.fromBytes(bytes.subarray(UNCOMPRESSED_PK_BYTES))),
      };
    },

    signProofOfPossession(sk) {
      return fromNobleSignature(noble.signProofOfPossession(nobleSecret(sk)));
    },

    verifyProofOfPossession(pk, pop) {
      return noble.verifyProofOfPossession(nobleKey(pk), nobleSignature(pop));
    },

    signWithDst(sk, message, dst) {
      return fromNobleSignature(noble.signWithDst(nobleSecret(sk), message, dst));
    },

    verifyWithDst(pk, message, sig, dst) {
      return noble.verifyWithDst(nobleKey(pk), message, nobleSignature(sig), dst);
    },
  };
  return backend;
}
