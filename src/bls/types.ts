// The one BLS interface the rest of warpgate uses. Two backends implement it: @chainsafe/blst
// (native, default) and @noble/curves (pure JS fallback). Both use Avalanche's scheme: min-pk,
// keys in G1 (48 bytes compressed), signatures in G2 (96 bytes compressed), ciphersuite
// BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_. See protocol.md section 3.

export type BackendName = 'blst' | 'noble';

/** A public key that passed avalanchego's checks (not infinity, in the subgroup). Reusable. */
export interface PublicKey {
  /** 48-byte compressed encoding. */
  readonly bytes: Uint8Array;
  /** Backend-native handle; only the backend that made it may read it. */
  readonly native: unknown;
}

/** A signature that passed the subgroup check. */
export interface Signature {
  /** 96-byte compressed encoding. */
  readonly bytes: Uint8Array;
  readonly native: unknown;
}

export interface SecretKey {
  /** 32-byte big-endian scalar, as in avalanchego's signer.key. */
  readonly bytes: Uint8Array;
  readonly native: unknown;
}

/** One aggregate to check, as verifyAggregate takes it. */
export interface AggregateSet {
  pk: PublicKey;
  message: Uint8Array;
  sig: Signature;
}

export interface BlsBackend {
  readonly name: BackendName;

  /** 48 bytes; rejects bad length, bad encoding, infinity, points outside the subgroup. */
  publicKeyFromBytes(bytes: Uint8Array): PublicKey;
  /** 96 bytes; rejects bad length, bad encoding, points outside the subgroup (infinity allowed). */
  signatureFromBytes(bytes: Uint8Array): Signature;
  /**
   * The same checks on the 192-byte uncompressed form (x ‖ y; compression and sort flags clear),
   * which only our own signer protocol carries: avalanchego parses the compressed form alone, so
   * nothing read from Avalanche's formats may come here. `bytes` of the result is compressed.
   */
  signatureFromUncompressed(bytes: Uint8Array): Signature;
  /** 32 bytes, a non-zero scalar below the group order. */
  secretKeyFromBytes(bytes: Uint8Array): SecretKey;
  /** A fresh random secret key. */
  generateSecretKey(): SecretKey;

  publicKeyOf(sk: SecretKey): PublicKey;
  /** 96-byte uncompressed encoding x‖y without flag bits, the canonical-set sort key. */
  publicKeyUncompressed(pk: PublicKey): Uint8Array;
  /** 192-byte uncompressed encoding x‖y of a signature (infinity: the 0x40 flag, the rest zero). */
  signatureUncompressed(sig: Signature): Uint8Array;

  sign(sk: SecretKey, message: Uint8Array): Signature;
  verify(pk: PublicKey, message: Uint8Array, sig: Signature): boolean;

  /**
   * Plain sums (an empty list throws BlsError). Keys that cancel out sum to the point at
   * infinity; it is returned as avalanchego does, and verify() against it is always false.
   */
  aggregatePublicKeys(pks: readonly PublicKey[]): PublicKey;
  aggregateSignatures(sigs: readonly Signature[]): Signature;

  /**
   * The plain sum of signatures that are each decoded and on the curve, but NOT checked for the
   * subgroup (infinity allowed): ~2.5x cheaper per signature with blst than signatureFromBytes
   * (bench/bls-backends.ts), and ~12x cheaper again for the 192-byte uncompressed form, which
   * needs no square root (the list may mix both forms). What does not decode (length, encoding, curve) is
   * left out and named in `rejected` (positions, ascending); `sum` is undefined when nothing was
   * left. The sum carries no subgroup guarantee: only verifyAggregate may check it, never verify().
   */
  sumUncheckedSignatures(list: readonly Uint8Array[]): { sum: Signature | undefined; rejected: number[] };
  /**
   * What avalanchego does with a signed message's aggregate (warp BitSetSignature.Verify:
   * bls.SignatureFromBytes, i.e. Uncompress + SigValidate, then bls.Verify): the subgroup check of
   * `sig`, then one pairing. For sums of sumUncheckedSignatures.
   */
  verifyAggregate(pk: PublicKey, message: Uint8Array, sig: Signature): boolean;
  /**
   * verifyAggregate of many (key, message, aggregate) sets at once, the messages distinct: true
   * only if every set would pass it alone. Each signature gets its subgroup check; the pairings are
   * checked together with a random 64-bit scalar per set (a false "true" has probability ~2^-64),
   * so the sets share one final exponentiation. False when any set fails or the list is empty:
   * then verifyAggregate of each tells which (Lodestar's "batch, then fall back").
   */
  verifyAggregates(sets: readonly AggregateSet[]): boolean;

  /**
   * Many signatures over one message: true iff every (pk, sig) pair is valid. Implemented with
   * random scalars (or aggregate-and-check-once), so the cost is about one pairing, not n.
   * An empty list is false: there is nothing that could prove the message signed.
   */
  verifySameMessage(message: Uint8Array, pairs: readonly { pk: PublicKey; sig: Signature }[]): boolean;

  /**
   * A running sum (Σ pk, Σ sig) as bytes, to hand between worker threads: uncompressed points
   * in this backend's own layout, so decoding costs no square roots. decodeTrustedSum checks
   * nothing (no curve, no subgroup): it is only for bytes encodeSum made in this process from
   * points that were checked when parsed, never for bytes from outside.
   */
  encodeSum(sum: { pk: PublicKey; sig: Signature }): Uint8Array;
  decodeTrustedSum(bytes: Uint8Array): { pk: PublicKey; sig: Signature };
  /**
   * (−Σ pk, −Σ sig): what takes a sum away from another (Σ − s = Σ + (−s)) with a plain sum.
   * Negating costs a field subtraction per coordinate, where parsing each negated key on its own
   * would repeat its checks (~40 µs per key with blst). Like the sums, the result is only for
   * verifyAggregate and further sums.
   */
  negateSum(sum: { pk: PublicKey; sig: Signature }): { pk: PublicKey; sig: Signature };

  /** Proof of possession: a signature over the 48-byte key under the _POP_ DST. */
  signProofOfPossession(sk: SecretKey): Signature;
  verifyProofOfPossession(pk: PublicKey, pop: Signature): boolean;

  /** Sign and verify under a caller-chosen DST (used by the peer handshake, never for Warp). */
  signWithDst(sk: SecretKey, message: Uint8Array, dst: string): Signature;
  verifyWithDst(pk: PublicKey, message: Uint8Array, sig: Signature, dst: string): boolean;
}

/**
 * Thrown for input bytes that are not a valid key or signature. `index` is set when the input
 * was one element of a list, so the caller can drop exactly that signer.
 */
export class BlsError extends Error {
  override readonly name = 'BlsError';
  constructor(
    readonly what: 'publicKey' | 'signature' | 'secretKey',
    readonly reason: string,
    readonly index?: number,
  ) {
    super(
      index === undefined
        ? `invalid BLS ${what}: ${reason}`
        : `invalid BLS ${what} at index ${index}: ${reason}`,
    );
  }
}
